/**
 * How the API server reads the embedded SQLite history through the operator's internal
 * endpoint: one source for the paths and the shapes of both sides (serve.ts in the operator,
 * client.ts in the API server). Only the operator opens the file, because SQLite is for one
 * process writing and the API server has no volume; PostgreSQL needs none of this.
 *
 * Listings travel as NDJSON, one store page a line, so that the operator reads the next page
 * only when the API server has taken the one before (TCP's backpressure does the pacing), and
 * end with an `end` line: a stream cut short (an operator restart, a store error) is an error
 * for the client, never a listing that silently stops.
 */
import { Type, type Static } from 'typebox';
import type { HistorySummary } from '../types.ts';

export const HISTORY_PREFIX = '/history/v1';

const name = Type.String({ minLength: 1 });
export const runParams = Type.Object({ namespace: name, dagName: name, dagRunId: name });
export const runIdParams = Type.Object({ namespace: name, dagRunId: name });
export const dagParams = Type.Object({ namespace: name, dagName: name });
export const namespaceParams = Type.Object({ namespace: name });
export const subRunParams = Type.Object({ namespace: name, rootName: name, rootDagRunId: name });

const pageSize = Type.Optional(Type.Integer({ minimum: 1 }));
export const listQuery = Type.Object(
  {
    name: Type.Optional(Type.String()),
    exactName: Type.Optional(Type.Boolean()),
    status: Type.Optional(Type.Integer({ minimum: 0 })),
    createdFrom: Type.Optional(Type.Integer()),
    createdTo: Type.Optional(Type.Integer()),
    dagRunId: Type.Optional(Type.String()),
    pageSize,
  },
  { additionalProperties: false },
);
export const pageQuery = Type.Object({ pageSize }, { additionalProperties: false });
export const limitQuery = Type.Object({ limit: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export const relistBody = Type.Object({ from: name, to: name }, { additionalProperties: false });
/** Most runs one batch read asks for: a page of a DAG's history is 30. */
export const MAX_BATCH_RUNS = 100;
export const runsBody = Type.Object(
  {
    runs: Type.Array(Type.Object({ name, dagRunId: name }, { additionalProperties: false }), {
      maxItems: MAX_BATCH_RUNS,
    }),
  },
  { additionalProperties: false },
);

export type RunParams = Static<typeof runParams>;
export type ListQuery = Static<typeof listQuery>;
export type RelistBody = Static<typeof relistBody>;

/** A line of a streamed listing. */
export type StreamLine =
  | { readonly page: readonly HistorySummary[] }
  | { readonly end: true }
  | { readonly error: string; readonly retryable: boolean };

/** What a failed request answers (status 500 or 503). */
export interface ErrorBody {
  readonly message: string;
  readonly retryable: boolean;
}

/** A path of the protocol with every part URI-encoded. */
export function historyPath(...parts: readonly string[]): string {
  return [HISTORY_PREFIX, ...parts.map(encodeURIComponent)].join('/');
}
