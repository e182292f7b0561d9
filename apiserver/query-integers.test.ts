/**
 * Integer query parameters as the document states them and the server takes them: each has
 * bounds no wider than the safe-integer range, the server refuses a value past them with 400 in
 * the contract's shape, and takes the edge itself (the route then answers 503: no cluster).
 */
import { describe, expect, it } from 'vitest';
import { testApp } from '../test/apiserver-app.ts';

const app = testApp();

interface Parameter {
  readonly in: string;
  readonly name: string;
  readonly schema: { type?: string; minimum?: number; maximum?: number };
}

async function integerParameters(): Promise<{ at: string; name: string; minimum?: number; maximum?: number }[]> {
  const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  }>();
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).flatMap(([method, operation]) =>
      (operation.parameters ?? [])
        .filter((p) => p.schema.type === 'integer')
        .map((p) => ({ at: `${method.toUpperCase()} ${path}`, name: p.name, ...p.schema })),
    ),
  );
}

describe('integer query parameters', () => {
  it('are each documented with bounds inside the safe-integer range', async () => {
    const found = await integerParameters();
    expect(found.length).toBeGreaterThan(10);
    const unbounded = found.filter(
      (p) =>
        p.minimum === undefined ||
        p.maximum === undefined ||
        p.minimum < Number.MIN_SAFE_INTEGER ||
        p.maximum > Number.MAX_SAFE_INTEGER,
    );
    expect(unbounded).toEqual([]);
  });

  it.each([
    {
      name: 'a page number past 2^53 (found by schemathesis: it came back as 4.889379788748448e+34)',
      query: 'page=48893797887484479536868199835369472',
      status: 400,
    },
    {
      name: 'one past the largest safe integer, which would read as 2^53',
      query: 'page=9007199254740992',
      status: 400,
    },
    { name: 'a very negative page', query: 'page=-9007199254740992', status: 400 },
    { name: 'the largest safe integer', query: 'page=9007199254740991', status: 503 },
    { name: 'a perPage over the contract maximum, which is clamped', query: 'perPage=5000', status: 503 },
  ])('GET /dags: $name answers $status', async ({ query, status }) => {
    const res = await app.inject({ method: 'GET', url: `/api/v2/dags?${query}` });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([
      status,
      status === 400 ? 'bad_request' : 'service_unavailable',
    ]);
  });

  it.each([
    { url: '/api/v2/dag-runs?fromDate=99999999999999999999', status: 400 },
    { url: '/api/v2/dag-runs/d/r/log?tail=99999999999999999999', status: 400 },
    { url: '/api/v2/dag-runs/d/r/steps/s/log?offset=9007199254740991', status: 503 },
  ])('$url answers $status', async ({ url, status }) => {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode).toBe(status);
  });
});
