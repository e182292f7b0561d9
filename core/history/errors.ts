/**
 * A history store's failures, each saying whether trying again can help: a lost connection, a
 * busy database or a deadlock can pass; a schema newer than this program, or a run without a
 * name, will not.
 */
export class HistoryStoreError extends Error {
  readonly retryable: boolean;

  constructor(message: string, options: { readonly retryable: boolean; readonly cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HistoryStoreError';
    this.retryable = options.retryable;
  }
}

/** SQLite's result codes for another connection holding a lock: the busy timeout ran out. */
const SQLITE_BUSY = 5;
const SQLITE_LOCKED = 6;
/** Socket errors of a server that went away or never answered. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * SQLSTATE classes and codes worth another try: connection exceptions (08), serialization
 * failure and deadlock (40001, 40P01), insufficient resources (53), operator intervention such
 * as a shutting down server (57P01-57P03).
 */
const RETRYABLE_SQLSTATE = /^(08|53|40001$|40P01$|57P0[1-3]$)/;

/** Whether an error thrown by node:sqlite or pg may pass if the operation is tried again. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof HistoryStoreError) return error.retryable;
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (typeof e?.errcode === 'number') return (e.errcode & 0xff) === SQLITE_BUSY || (e.errcode & 0xff) === SQLITE_LOCKED;
  if (typeof e?.code === 'string') {
    if (NETWORK_CODES.has(e.code)) return true;
    if (/^[0-9A-Z]{5}$/.test(e.code)) return RETRYABLE_SQLSTATE.test(e.code);
  }
  // pg's own errors for a connection that ended or timed out carry no code.
  return (
    typeof e?.message === 'string' && /connection terminated|timeout exceeded when trying to connect/i.test(e.message)
  );
}

/** The error as a HistoryStoreError that names what was being done. */
export function storeError(what: string, error: unknown): HistoryStoreError {
  if (error instanceof HistoryStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new HistoryStoreError(`history store: ${what}: ${message}`, { retryable: isRetryable(error), cause: error });
}
