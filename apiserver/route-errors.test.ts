import type { RouteOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeThrows, type RouteThrows } from '../test/route-throws.ts';
import { API_PREFIX } from './paths.ts';
import { parseRouteError } from './responses.ts';
import { testApp } from '../test/apiserver-app.ts';

const ROUTE_FILES = [
  'apiserver/routes/system.ts',
  'apiserver/routes/dags.ts',
  'apiserver/routes/execution.ts',
  'apiserver/routes/runs.ts',
  'apiserver/routes/logs.ts',
  'apiserver/routes/cluster-info.ts',
];

/**
 * Throws the source reaches that the route cannot make, each with the reason: the reading
 * follows a variable's type, not its value.
 */
const UNREACHABLE: Readonly<Record<string, readonly string[]>> = {
  // Starter.start names a singleton conflict by the request's singletonCode: max_run_reached inline.
  'POST /dag-runs': ['already_running@409'],
  'POST /dag-runs/enqueue': ['already_running@409'],
  // A retry under a new id is never a singleton start; a conflict is checked first (400).
  'POST /dag-runs/:name/:dagRunId/retry': ['already_running@409'],
};

interface Operation {
  responses: Record<
    string,
    { content?: Record<string, { schema?: { allOf?: { properties?: { code?: { enum?: string[] } } }[] } }> }
  >;
}

/** `code@status` of every error answer a document's operation declares. */
function declaredAnswers(operation: Operation): Set<string> {
  const answers = new Set<string>();
  for (const [status, response] of Object.entries(operation.responses)) {
    const codes = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.code?.enum ?? [];
    for (const code of codes) answers.add(`${code}@${status}`);
  }
  return answers;
}

const toOpenApi = (url: string): string => `${API_PREFIX}${url.replace(/:(\w+)/g, '{$1}')}`;

let found: RouteThrows[];
let doc: { paths: Record<string, Record<string, Operation>> };
const routes: RouteOptions[] = [];

beforeAll(async () => {
  found = routeThrows(ROUTE_FILES);
  const app = testApp({ auth: { tokens: [{ token: 't' }] }, routes });
  doc = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json();
}, 120_000);

describe("each route's documented errors", () => {
  it('are read from the source for every documented operation', () => {
    const read = new Set(found.map((r) => r.route));
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(
      documented.filter(
        (d) => ![...read].some((r) => `${r.split(' ')[0] ?? ''} ${toOpenApi(r.split(' ')[1] ?? '')}` === d),
      ),
    ).toEqual([]);
  });

  it('include every error its handler can throw, with the status it is thrown with', () => {
    const missing = found.flatMap(({ route, throws }) => {
      const [method = '', url = ''] = route.split(' ');
      const operation = doc.paths[toOpenApi(url)]?.[method.toLowerCase()];
      // Hidden routes (the document itself) are fine while they throw nothing.
      if (operation === undefined) return throws.size === 0 ? [] : [`${route}: not in the document`];
      const declared = declaredAnswers(operation);
      return [...throws]
        .filter((t) => !declared.has(t) && !(UNREACHABLE[route] ?? []).includes(t))
        .map((t) => `${route} throws ${t}`);
    });
    expect(missing).toEqual([]);
  });

  it('declare only codes its handler can throw', () => {
    const byRoute = new Map(found.map((r) => [r.route, r.throws]));
    // /api/v2's: /api/v1 registers the same handlers again (v1/api.ts) and its own in v1/.
    const stale = routes
      .filter((route) => route.url.startsWith(`${API_PREFIX}/`))
      .flatMap((route) => {
        // fastify's HEAD routes share their GET's config and handler.
        const key = `${route.method === 'HEAD' ? 'GET' : String(route.method)} ${route.url.slice(API_PREFIX.length)}`;
        const throws = byRoute.get(key) ?? new Set();
        return (route.config?.errors ?? [])
          .map(parseRouteError)
          .filter(({ code, status }) => !throws.has(`${code}@${String(status)}`))
          .map(({ code, status }) => `${key} declares ${code}@${String(status)}`);
      });
    expect(stale).toEqual([]);
  });

  it('name no throw as unreachable that the source no longer has', () => {
    const byRoute = new Map(found.map((r) => [r.route, r.throws]));
    const gone = Object.entries(UNREACHABLE).flatMap(([route, list]) =>
      list.filter((t) => byRoute.get(route)?.has(t) !== true).map((t) => `${route} ${t}`),
    );
    expect(gone).toEqual([]);
  });
});
