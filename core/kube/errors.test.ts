import { describe, expect, it } from 'vitest';
import {
  apiErrorMessage,
  createFailure,
  ignoreAlreadyExists,
  ignoreConflict,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  refusalLimit,
  retryAfterMs,
  statusCode,
  writeFailure,
  type CreateFailure,
  type WriteFailure,
} from './errors.ts';

/** An error as @kubernetes/client-node throws it: the code, and the Status object as text. */
function apiError(code: number, reason?: string): Error {
  return Object.assign(new Error(`HTTP-Code: ${String(code)}`), {
    code,
    body: reason === undefined ? '' : JSON.stringify({ kind: 'Status', code, reason }),
  });
}

describe('API error classes', () => {
  const cases: {
    name: string;
    error: unknown;
    want: { code: number | undefined; notFound: boolean; conflict: boolean; exists: boolean };
  }[] = [
    {
      name: 'a 404 is not found and nothing else',
      error: apiError(404, 'NotFound'),
      want: { code: 404, notFound: true, conflict: false, exists: false },
    },
    {
      name: 'a 409 Conflict is a conflict, not an existing name',
      error: apiError(409, 'Conflict'),
      want: { code: 409, notFound: false, conflict: true, exists: false },
    },
    {
      name: 'a 409 AlreadyExists is an existing name, not a conflict',
      error: apiError(409, 'AlreadyExists'),
      want: { code: 409, notFound: false, conflict: false, exists: true },
    },
    {
      name: 'a 409 without a readable reason counts as both',
      error: apiError(409),
      want: { code: 409, notFound: false, conflict: true, exists: true },
    },
    {
      name: 'a reason given as an object body is read too',
      error: { code: 409, body: { reason: 'AlreadyExists' } },
      want: { code: 409, notFound: false, conflict: false, exists: true },
    },
    {
      name: 'a 500 is none of the expected errors',
      error: apiError(500, 'InternalError'),
      want: { code: 500, notFound: false, conflict: false, exists: false },
    },
    {
      name: 'an error without a code has no status',
      error: new Error('socket hang up'),
      want: { code: undefined, notFound: false, conflict: false, exists: false },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect({
        code: statusCode(c.error),
        notFound: isNotFound(c.error),
        conflict: isConflict(c.error),
        exists: isAlreadyExists(c.error),
      }).toEqual(c.want);
    });
  }
});

describe('apiErrorMessage', () => {
  it.each([
    {
      name: 'the Status message is what a person reads',
      error: Object.assign(new Error('HTTP-Code: 403\nBody: ...'), {
        code: 403,
        body: JSON.stringify({ kind: 'Status', message: 'pods is forbidden: exceeded quota' }),
      }),
      want: 'pods is forbidden: exceeded quota',
    },
    {
      name: 'an error without a Status keeps its own message',
      error: new Error('socket hang up'),
      want: 'socket hang up',
    },
    {
      name: 'a body that is not JSON keeps the error message',
      error: Object.assign(new Error('HTTP-Code: 502'), { code: 502, body: '<html>' }),
      want: 'HTTP-Code: 502',
    },
  ])('$name', ({ error, want }) => {
    expect(apiErrorMessage(error)).toBe(want);
  });
});

describe('isInvalid', () => {
  const cases: { name: string; error: unknown; want: boolean }[] = [
    { name: 'a 422 is invalid', error: apiError(422, 'Invalid'), want: true },
    { name: 'a 409 is not', error: apiError(409, 'Conflict'), want: false },
    { name: 'an error without a code is not', error: new Error('socket hang up'), want: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(isInvalid(c.error)).toBe(c.want);
    });
  }
});

describe('ignore helpers', () => {
  const rejected = (error: Error): Promise<number> => Promise.reject(error);
  it('ignoreNotFound gives undefined for a 404 and the value otherwise', async () => {
    expect(await ignoreNotFound(rejected(apiError(404, 'NotFound')))).toBeUndefined();
    expect(await ignoreNotFound(Promise.resolve(3))).toBe(3);
  });

  it('ignoreNotFound throws any other error on', async () => {
    await expect(ignoreNotFound(rejected(apiError(409, 'Conflict')))).rejects.toThrow('HTTP-Code: 409');
  });

  it('ignoreAlreadyExists swallows an existing name but not a conflict', async () => {
    expect(await ignoreAlreadyExists(rejected(apiError(409, 'AlreadyExists')))).toBeUndefined();
    await expect(ignoreAlreadyExists(rejected(apiError(409, 'Conflict')))).rejects.toThrow('HTTP-Code: 409');
  });

  it('ignoreConflict swallows a conflict but not a missing object', async () => {
    expect(await ignoreConflict(rejected(apiError(409, 'Conflict')))).toBeUndefined();
    await expect(ignoreConflict(rejected(apiError(404, 'NotFound')))).rejects.toThrow('HTTP-Code: 404');
  });
});

/** A Status error as the client throws it, with the API server's message. */
const status = (code: number, reason: string, message: string): Error =>
  Object.assign(new Error(`HTTP-Code: ${String(code)}`), {
    code,
    body: JSON.stringify({ kind: 'Status', code, reason, message }),
  });
/** What etcd's size limit looks like through kube-apiserver: a 500 that no retry passes. */
const ETCD_TOO_LARGE = status(500, 'InternalError', 'etcdserver: request is too large');

describe('createFailure', () => {
  const cases: { name: string; error: unknown; want: CreateFailure }[] = [
    {
      name: 'a 403 from a ValidatingAdmissionPolicy is refused for good',
      error: status(
        403,
        'Forbidden',
        "pods \"x\" is forbidden: ValidatingAdmissionPolicy 'deny' with binding 'deny' denied request: no",
      ),
      want: 'refused',
    },
    {
      name: 'a 403 from PodSecurity enforce is refused for good',
      error: status(
        403,
        'Forbidden',
        'pods "x" is forbidden: violates PodSecurity "restricted:latest": runAsNonRoot != true',
      ),
      want: 'refused',
    },
    {
      name: 'a 403 from a quota that lacks limits on the Pod is refused for good',
      error: status(403, 'Forbidden', 'pods "x" is forbidden: failed quota: q: must specify limits.cpu for: step'),
      want: 'refused',
    },
    {
      name: 'a 403 for an exceeded quota waits',
      error: status(
        403,
        'Forbidden',
        'pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0',
      ),
      want: 'wait',
    },
    {
      name: 'a 403 for a quota not yet counted waits',
      error: status(403, 'Forbidden', 'pods "x" is forbidden: status unknown for quota: q, resources: pods'),
      want: 'wait',
    },
    {
      name: "a 403 for the creator's own RBAC waits",
      error: status(
        403,
        'Forbidden',
        'pods is forbidden: User "op" cannot create resource "pods" in API group "" in the namespace "n"',
      ),
      want: 'wait',
    },
    {
      name: 'a 403 in a namespace being deleted waits',
      error: status(
        403,
        'Forbidden',
        'pods "x" is forbidden: unable to create new content in namespace n because it is being terminated',
      ),
      want: 'wait',
    },
    {
      name: 'a 422 from a ValidatingAdmissionPolicy without a reason is refused for good',
      error: status(
        422,
        'Invalid',
        "pods \"x\" is forbidden: ValidatingAdmissionPolicy 'deny' with binding 'deny' denied request: no",
      ),
      want: 'refused',
    },
    {
      name: 'a 422 invalid object is refused for good',
      error: status(422, 'Invalid', 'Pod "x" is invalid: spec.containers[0].image: Required value'),
      want: 'refused',
    },
    { name: 'a 400 bad request is refused for good', error: status(400, 'BadRequest', 'bad'), want: 'refused' },
    {
      name: 'a 409 AlreadyExists is the attempt created before',
      error: status(409, 'AlreadyExists', 'pods "x" already exists'),
      want: 'exists',
    },
    { name: 'a 409 Conflict waits', error: status(409, 'Conflict', 'conflict'), want: 'wait' },
    { name: 'a 429 waits', error: status(429, 'TooManyRequests', 'slow down'), want: 'wait' },
    {
      name: 'a 500 (a failing webhook) waits',
      error: status(500, 'InternalError', 'failed calling webhook'),
      want: 'wait',
    },
    { name: "a 500 for etcd's size limit is refused for good", error: ETCD_TOO_LARGE, want: 'refused' },
    {
      name: 'a 413 over the API server request limit is refused for good',
      error: status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'),
      want: 'refused',
    },
    { name: 'a 503 waits', error: status(503, 'ServiceUnavailable', 'unavailable'), want: 'wait' },
    { name: 'a 504 timeout waits', error: status(504, 'Timeout', 'timeout'), want: 'wait' },
    { name: 'an error without a code (a connection reset) waits', error: new Error('socket hang up'), want: 'wait' },
  ];
  it.each(cases)('$name', ({ error, want }) => {
    expect(createFailure(error)).toBe(want);
  });
});

describe('writeFailure', () => {
  const cases: { name: string; error: unknown; want: WriteFailure; limit: string }[] = [
    {
      name: "a status over etcd's size limit (a 500) is refused for good",
      error: ETCD_TOO_LARGE,
      want: 'refused',
      limit: 'the size limit of an object',
    },
    {
      name: 'a status over the API server request limit (413) is refused for good',
      error: status(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'),
      want: 'refused',
      limit: 'the size limit of an object',
    },
    {
      name: 'a status the schema or a CEL rule rejects (422) is refused for good',
      error: status(
        422,
        'Invalid',
        'DAGRun.kubedag.io "r" is invalid: status.nodes: Too many: 5001: must have at most 5000 items',
      ),
      want: 'refused',
      limit: 'validation (422 Invalid)',
    },
    {
      name: 'a status an admission policy denies (403) is refused for good',
      error: status(
        403,
        'Forbidden',
        "dagruns.kubedag.io \"r\" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'p' denied request: too many nodes",
      ),
      want: 'refused',
      limit: 'an admission policy (403 Forbidden)',
    },
    {
      name: 'a quota that is full for now waits',
      error: status(403, 'Forbidden', 'exceeded quota: q'),
      want: 'wait',
      limit: 'a ResourceQuota',
    },
    {
      name: 'a write on an old version is a conflict: decide again',
      error: status(409, 'Conflict', 'the object has been modified'),
      want: 'conflict',
      limit: 'an error of the API server (409)',
    },
    {
      name: 'a webhook that does not answer waits',
      error: status(500, 'InternalError', 'failed calling webhook "w": connection refused'),
      want: 'wait',
      limit: 'an error of the API server (500)',
    },
    { name: 'a connection reset waits', error: new Error('socket hang up'), want: 'wait', limit: 'no answer' },
  ];
  it.each(cases)('$name', ({ error, want, limit }) => {
    expect([writeFailure(error), refusalLimit(error)]).toEqual([want, limit]);
  });
});

describe('retryAfterMs', () => {
  const tooMany = (details?: object): Error =>
    Object.assign(new Error('HTTP-Code: 429'), {
      code: 429,
      body: JSON.stringify({ kind: 'Status', code: 429, reason: 'TooManyRequests', ...(details ? { details } : {}) }),
    });
  it.each([
    { name: 'the wait the server names', error: tooMany({ retryAfterSeconds: 2 }), want: 2000 },
    { name: 'one second when it names none', error: tooMany(), want: 1000 },
    { name: 'at most five seconds', error: tooMany({ retryAfterSeconds: 60 }), want: 5000 },
    { name: 'nothing for another status', error: apiError(409, 'Conflict'), want: undefined },
    { name: 'nothing for no answer at all', error: new Error('socket hang up'), want: undefined },
  ])('$name', ({ error, want }) => {
    expect(retryAfterMs(error)).toBe(want);
  });
});
