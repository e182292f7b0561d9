/**
 * One server, two OpenAPI documents: @fastify/swagger renders every route of the app, and each
 * API's document is that rendering cut to its own paths, with its own title. /api/v2's keeps
 * every path that is not /api/v1's (so it is what it was before /api/v1 was served); /api/v1's
 * keeps only /api/v1's. Shared schemas (`Error`) and security schemes stay in both. Pure.
 */
import { API_PREFIX, V1_PREFIX } from './paths.ts';

export type ApiVersion = 'v1' | 'v2';

const DESCRIPTIONS: Readonly<Record<ApiVersion, string>> = {
  v2: "Dagu's /api/v2 over Kubernetes resources",
  v1: "Dagu 2.x's /api/v1 over Kubernetes resources: the operations on DAGs, runs, logs, queues and workers; Dagu's own product (users, API keys, wiki, notifications, workspaces, Git sync, ...) answers 501 not_implemented (tag `not served`)",
};

export const PREFIXES: Readonly<Record<ApiVersion, string>> = { v1: V1_PREFIX, v2: API_PREFIX };

interface Document {
  readonly info?: Record<string, unknown>;
  readonly paths?: Record<string, unknown>;
}

export function documentFor<D extends object>(full: D, version: ApiVersion): D {
  const { info, paths = {} } = full as Document;
  const under = (path: string): boolean => path === V1_PREFIX || path.startsWith(`${V1_PREFIX}/`);
  const kept = Object.fromEntries(
    Object.entries(paths).filter(([path]) => (version === 'v1' ? under(path) : !under(path))),
  );
  return { ...full, info: { ...info, description: DESCRIPTIONS[version] }, paths: kept };
}
