import { describe, expect, it } from 'vitest';
import type { DagRunStatus } from '../core/resources/schemas.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { ApiError } from './errors.ts';
import { isActiveRun } from '../core/resources/queue.ts';
import { dagRun as aDagRun } from '../test/builders/dag-run.ts';
import { checkParams, checkRunId } from './starts.ts';

function dagRun(status: DagRunStatus | undefined): DagRunResource {
  const builder = aDagRun('etl-r1').of('etl', 'r1');
  return (status === undefined ? builder : builder.status(status)).build();
}

/** What `action` throws, for expectations on its code and status. */
function thrown(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('isActiveRun', () => {
  it.each<[string, DagRunStatus | undefined, boolean]>([
    ['a run the operator has not picked up yet (no status)', undefined, true],
    ['a run with an empty status', {}, true],
    ['a run not started and not finished', { status: 0 }, true],
    ['a running run', { status: 1, startedAt: '2026-03-01T10:00:00Z' }, true],
    ['a queued run', { status: 5, queuedAt: '2026-03-01T10:00:00Z' }, true],
    ['a running run with a finish time of an earlier attempt', { status: 1, finishedAt: '2026-03-01T10:00:00Z' }, true],
    ['a failed run', { status: 2, finishedAt: '2026-03-01T10:00:00Z' }, false],
    ['a canceled run', { status: 3, finishedAt: '2026-03-01T10:00:00Z' }, false],
    ['a succeeded run', { status: 4, finishedAt: '2026-03-01T10:00:00Z' }, false],
    ['a partially succeeded run', { status: 6, finishedAt: '2026-03-01T10:00:00Z' }, false],
    ['a failed run without a finish time', { status: 2 }, false],
    ['a run that finished without ever starting (status 0)', { status: 0, finishedAt: '2026-03-01T10:00:00Z' }, false],
    ['a run with only a finish time', { finishedAt: '2026-03-01T10:00:00Z' }, false],
  ])('counts %s as active: %s', (_, status, active) => {
    expect(isActiveRun(dagRun(status))).toBe(active);
  });
});

describe('checkRunId', () => {
  it.each<[string, string]>([
    ['one letter', 'a'],
    ['letters, digits, "-" and "_"', 'Run-1_b'],
    ['a UUID', '0195f0c6-6c2e-7a3b-9c1d-2e3f4a5b6c7d'],
    ['64 characters', 'x'.repeat(64)],
    ['only separators', '-_-'],
  ])('accepts %s', (_, id) => {
    expect(() => {
      checkRunId(id);
    }).not.toThrow();
  });

  it.each<[string, string]>([
    ['an empty id', ''],
    ['65 characters', 'x'.repeat(65)],
    ['a space', 'run 1'],
    ['a slash', 'a/b'],
    ['a dot', 'a.b'],
    ['a non-ASCII letter', 'läuft'],
    ['a trailing newline', 'run1\n'],
  ])('rejects %s as a bad request', (_, id) => {
    const error = thrown(() => {
      checkRunId(id);
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'bad_request', status: 400 });
    expect((error as ApiError).message).toContain('invalid dagRunId');
  });
});

describe('checkParams', () => {
  it.each<[string, string | undefined]>([
    ['no params', undefined],
    ['empty params', ''],
    ['blank params', '   '],
    ['a JSON object', '{"A":"1","B":2}'],
    ['a JSON array', '["x","y"]'],
    ['NAME=value tokens', 'A=1 B=two'],
    ['a quoted value with spaces', 'A=1 B="two words"'],
    ['positional values', 'first second'],
    ['single quotes', "A='x y'"],
  ])('accepts %s', (_, params) => {
    expect(() => {
      checkParams(params);
    }).not.toThrow();
  });

  it.each<[string, string]>([
    ['an unterminated double quote', 'A="open'],
    ['an unterminated single quote', "B='open"],
    ['an unterminated quote after good tokens', 'A=1 "b'],
  ])('rejects %s as a bad request', (_, params) => {
    const error = thrown(() => {
      checkParams(params);
    });
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'bad_request', status: 400 });
    expect((error as ApiError).message).toMatch(/^invalid params: unterminated quote/);
  });
});
