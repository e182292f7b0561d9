/**
 * Where the contract's routes live. Kept apart from app.ts and the route modules so that both
 * can name them without importing each other.
 */

export const API_PREFIX = '/api/v2';

/** Dagu 2.x's API, served beside /api/v2 by the same handlers (v1/api.ts). */
export const V1_PREFIX = '/api/v1';

/** Both spellings of a sub-run path segment: `sub-dag-runs/{id}` (the contract), `children/{id}` (older clients). */
export const SUB_RUN_SEGMENTS = ['sub-dag-runs/:subDAGRunId', 'children/:subDAGRunId'] as const;
