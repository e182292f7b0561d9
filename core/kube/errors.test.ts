import { describe, expect, it } from 'vitest';
import { apiErrorMessage, ignoreAlreadyExists, ignoreConflict, ignoreNotFound, isAlreadyExists, isConflict, isInvalid, isNotFound, statusCode } from './errors.ts';

/** An error as @kubernetes/client-node throws it: the code, and the Status object as text. */
function apiError(code: number, reason?: string): Error {
  return Object.assign(new Error(`HTTP-Code: ${String(code)}`), { code, body: reason === undefined ? '' : JSON.stringify({ kind: 'Status', code, reason }) });
}

describe('API error classes', () => {
  const cases: { name: string; error: unknown; want: { code: number | undefined; notFound: boolean; conflict: boolean; exists: boolean } }[] = [
    { name: 'a 404 is not found and nothing else', error: apiError(404, 'NotFound'), want: { code: 404, notFound: true, conflict: false, exists: false } },
    { name: 'a 409 Conflict is a conflict, not an existing name', error: apiError(409, 'Conflict'), want: { code: 409, notFound: false, conflict: true, exists: false } },
    { name: 'a 409 AlreadyExists is an existing name, not a conflict', error: apiError(409, 'AlreadyExists'), want: { code: 409, notFound: false, conflict: false, exists: true } },
    { name: 'a 409 without a readable reason counts as both', error: apiError(409), want: { code: 409, notFound: false, conflict: true, exists: true } },
    { name: 'a reason given as an object body is read too', error: { code: 409, body: { reason: 'AlreadyExists' } }, want: { code: 409, notFound: false, conflict: false, exists: true } },
    { name: 'a 500 is none of the expected errors', error: apiError(500, 'InternalError'), want: { code: 500, notFound: false, conflict: false, exists: false } },
    { name: 'an error without a code has no status', error: new Error('socket hang up'), want: { code: undefined, notFound: false, conflict: false, exists: false } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect({ code: statusCode(c.error), notFound: isNotFound(c.error), conflict: isConflict(c.error), exists: isAlreadyExists(c.error) }).toEqual(c.want);
    });
  }
});

describe('apiErrorMessage', () => {
  it.each([
    { name: 'the Status message is what a person reads', error: Object.assign(new Error('HTTP-Code: 403\nBody: ...'), { code: 403, body: JSON.stringify({ kind: 'Status', message: 'pods is forbidden: exceeded quota' }) }), want: 'pods is forbidden: exceeded quota' },
    { name: 'an error without a Status keeps its own message', error: new Error('socket hang up'), want: 'socket hang up' },
    { name: 'a body that is not JSON keeps the error message', error: Object.assign(new Error('HTTP-Code: 502'), { code: 502, body: '<html>' }), want: 'HTTP-Code: 502' },
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
