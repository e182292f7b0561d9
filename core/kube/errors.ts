/**
 * The Kubernetes API errors a controller expects and handles (not found, conflict, already
 * exists), told apart by the HTTP status and the Status object's reason, as client-go's
 * `apierrors.IsNotFound` and friends do. Anything else is unexpected and is thrown on.
 */

/** The HTTP status of an error thrown by @kubernetes/client-node, if it has one. */
export function statusCode(error: unknown): number | undefined {
  const value = error as { code?: unknown; statusCode?: unknown } | null;
  const code = value?.code ?? value?.statusCode;
  return typeof code === 'number' ? code : undefined;
}

/** The Status object in an error's body (the client keeps the body as text), if there is one. */
function statusOf(error: unknown): { reason?: unknown; message?: unknown } | undefined {
  const body = (error as { body?: unknown } | null)?.body;
  if (typeof body !== 'string') return body ?? undefined;
  try {
    return JSON.parse(body) as { reason?: unknown; message?: unknown } | undefined;
  } catch {
    return undefined;
  }
}

/** The `reason` of the Status object in an error's body. */
export function statusReason(error: unknown): string | undefined {
  const reason = statusOf(error)?.reason;
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * What the API server said, for people: the Status message (`... is forbidden: exceeded
 * quota ...`) rather than the client's multi-line dump of code, headers and body.
 */
export function apiErrorMessage(error: unknown): string {
  const message = statusOf(error)?.message;
  if (typeof message === 'string' && message !== '') return message;
  return error instanceof Error ? error.message : String(error);
}

export function isNotFound(error: unknown): boolean {
  return statusCode(error) === 404;
}

/**
 * A request the server refused as invalid (422), such as a JSON patch whose `test` operation
 * failed because the object is not the one the patch was made for.
 */
export function isInvalid(error: unknown): boolean {
  return statusCode(error) === 422;
}

/**
 * A write made on a version that is no longer current (409 Conflict). Both this and
 * "already exists" answer 409; a 409 whose reason is unknown counts as either.
 */
export function isConflict(error: unknown): boolean {
  return statusCode(error) === 409 && statusReason(error) !== 'AlreadyExists';
}

/** A create of a name that is taken (409 AlreadyExists). */
export function isAlreadyExists(error: unknown): boolean {
  return statusCode(error) === 409 && (statusReason(error) ?? 'AlreadyExists') === 'AlreadyExists';
}

/** The call's result, or undefined when it failed with an error `expected` accepts; other errors are thrown on. */
async function ignoring<T>(call: Promise<T>, expected: (error: unknown) => boolean): Promise<T | undefined> {
  try {
    return await call;
  } catch (error) {
    if (expected(error)) return undefined;
    throw error;
  }
}

/** The call's result, or undefined when the object is not there (controller-runtime's IgnoreNotFound). */
export function ignoreNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  return ignoring(call, isNotFound);
}

/** The created object, or undefined when one of that name exists already (deterministic names). */
export function ignoreAlreadyExists<T>(call: Promise<T>): Promise<T | undefined> {
  return ignoring(call, isAlreadyExists);
}

/** The written object, or undefined when the write lost a race with another writer. */
export function ignoreConflict<T>(call: Promise<T>): Promise<T | undefined> {
  return ignoring(call, isConflict);
}

/**
 * What a failed create means for whoever needs the object: `exists` (the deterministic name is
 * taken: this very object was created before), `refused` (the API will refuse the same body
 * again until someone changes it: an admission policy or PodSecurity `enforce` denied it, or it
 * is invalid), or `wait` (the refusal may pass by itself: a ResourceQuota that is full now or not
 * yet counted, the caller's own RBAC, a namespace being deleted, throttling, a server or webhook
 * error, a timeout, a conflict). Anything unknown waits: retrying is what was done before. A
 * write over etcd's size limit is refused for good although it comes as a 500 (isTooLarge).
 */
export type CreateFailure = 'exists' | 'refused' | 'wait';

/** Messages of a 403 that is not about the object's body, so may pass later. */
const FORBIDDEN_FOR_NOW = [
  // ResourceQuota: full now, or its usage not yet counted.
  'exceeded quota',
  'status unknown for quota',
  // RBAC: the creator's own permissions, which an administrator fixes.
  'cannot create resource',
  // The namespace is being deleted (and the run with it).
  'is being terminated',
];

/**
 * Signs in a message that a write was over a size limit: etcd refuses a request over its
 * `--max-request-bytes` (1.5 MiB by default) with `etcdserver: request is too large`, which
 * kube-apiserver passes on as a 500; kube-apiserver itself answers 413 over its own 3 MiB.
 */
const TOO_LARGE = ['request is too large', 'Request entity too large'];

/** A write refused for its size: the same body, or a bigger one, is refused again. */
export function isTooLarge(error: unknown): boolean {
  if (statusCode(error) === 413) return true;
  const message = apiErrorMessage(error);
  return TOO_LARGE.some((sign) => message.includes(sign));
}

/** Whether the API will refuse the same body again until someone changes it (see CreateFailure). */
function refusedForGood(error: unknown): boolean {
  const code = statusCode(error);
  // 400 malformed, 413 too large, 422 invalid: the same body gets the same answer.
  if (code === 400 || code === 413 || code === 422 || isTooLarge(error)) return true;
  if (code === 403) {
    const message = apiErrorMessage(error);
    return !FORBIDDEN_FOR_NOW.some((sign) => message.includes(sign));
  }
  return false;
}

export function createFailure(error: unknown): CreateFailure {
  if (statusCode(error) === 409) return isAlreadyExists(error) ? 'exists' : 'wait';
  return refusedForGood(error) ? 'refused' : 'wait';
}

/**
 * What a failed write of an existing object (an update, a status write, a patch) means:
 * `conflict` (the object changed since it was read: read again and decide again), `refused`
 * (the same body is refused again: over a size limit, invalid against the schema or its CEL
 * rules, denied by an admission policy), or `wait` (may pass by itself, as for CreateFailure).
 */
export type WriteFailure = 'conflict' | 'refused' | 'wait';

export function writeFailure(error: unknown): WriteFailure {
  if (statusCode(error) === 409) return 'conflict';
  return refusedForGood(error) ? 'refused' : 'wait';
}

/** Which limit of the API a refusal is, in words for a run's error and its Event. */
export function refusalLimit(error: unknown): string {
  if (isTooLarge(error)) return 'the size limit of an object';
  const code = statusCode(error);
  if (code === 422) return 'validation (422 Invalid)';
  if (code === 403)
    return apiErrorMessage(error).includes('exceeded quota')
      ? 'a ResourceQuota'
      : 'an admission policy (403 Forbidden)';
  if (code === 400) return 'a malformed request (400)';
  return code === undefined ? 'no answer' : `an error of the API server (${String(code)})`;
}

/** Longest wait a read takes on the API server's word before it tries again. */
const MOST_RETRY_AFTER_MS = 5_000;

/**
 * How long to wait before asking again, when the API server answered 429 Too Many Requests
 * (API Priority and Fairness, or a resource's storage being initialised when its CRD changed):
 * its Status details' `retryAfterSeconds`, else one second, at most five. Undefined for any
 * other error. client-go waits and retries such answers itself; this is that rule.
 */
export function retryAfterMs(error: unknown): number | undefined {
  if (statusCode(error) !== 429) return undefined;
  const details = (statusOf(error) as { details?: { retryAfterSeconds?: unknown } } | undefined)?.details;
  const seconds = details?.retryAfterSeconds;
  const ms = typeof seconds === 'number' && seconds > 0 ? seconds * 1000 : 1000;
  return Math.min(ms, MOST_RETRY_AFTER_MS);
}
