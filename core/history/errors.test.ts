import { describe, expect, it } from 'vitest';
import { HistoryStoreError, isRetryable, storeError } from './errors.ts';

describe('isRetryable', () => {
  it.each([
    { name: 'SQLite busy (another connection holds the lock)', error: { errcode: 5 }, want: true },
    { name: 'SQLite busy in an extended code', error: { errcode: 5 | (2 << 8) }, want: true },
    { name: 'a SQLite constraint failure', error: { errcode: 19 }, want: false },
    { name: 'a refused connection', error: { code: 'ECONNREFUSED' }, want: true },
    { name: 'a PostgreSQL connection failure (08006)', error: { code: '08006' }, want: true },
    { name: 'a serialization failure', error: { code: '40001' }, want: true },
    { name: 'a deadlock', error: { code: '40P01' }, want: true },
    { name: 'a server shutting down', error: { code: '57P01' }, want: true },
    { name: 'a unique violation', error: { code: '23505' }, want: false },
    { name: 'a syntax error', error: { code: '42601' }, want: false },
    {
      name: "pg's own message for a lost connection",
      error: new Error('Connection terminated unexpectedly'),
      want: true,
    },
    { name: 'anything else', error: new Error('something odd'), want: false },
    {
      name: 'a store error that said so',
      error: new HistoryStoreError('newer schema', { retryable: false }),
      want: false,
    },
  ])('$name: $want', ({ error, want }) => {
    expect(isRetryable(error)).toBe(want);
  });

  it('names what was being done and keeps the cause', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(storeError('list runs', cause)).toMatchObject({
      message: 'history store: list runs: connect ECONNREFUSED 127.0.0.1:5432',
      retryable: true,
      cause,
    });
  });
});
