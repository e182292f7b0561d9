/**
 * Where the contract's routes live. Kept apart from app.ts and the route modules so that both
 * can name them without importing each other.
 */

export const API_PREFIX = '/api/v2';

/** Both spellings of a sub-run path segment: `sub-dag-runs/{id}` (the contract), `children/{id}` (older clients). */
export const SUB_RUN_SEGMENTS = ['sub-dag-runs/:subDAGRunId', 'children/:subDAGRunId'] as const;
