import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { captureIO } from '../../test/step-io.ts';
import { runWait, waitPlan } from './wait.ts';

const spec = (command: string, config: Record<string, unknown>): ExecutorSpec => ({ type: 'wait', command, config });
const planOf = (command: string, config: Record<string, unknown>, env: Record<string, string> = {}) =>
  waitPlan(spec(command, config), env, '/work');

describe('waitPlan reads the settings as Dagu does', () => {
  it.each([
    ['a duration', 'duration', { duration: '1m30s' }, { kind: 'duration', ms: 90_000 }],
    [
      'a time with its offset',
      'until',
      { until: '2026-11-29T12:00:00+01:00' },
      { kind: 'until', at: Date.parse('2026-11-29T11:00:00Z') },
    ],
    [
      'a relative path against the working directory, exists by default',
      'file',
      { path: 'ready/flag', poll_interval: '250ms' },
      { kind: 'file', path: '/work/ready/flag', state: 'exists', pollMs: 250 },
    ],
    [
      'an http wait with its defaults: GET, 200, 1s apart, 10s a request',
      'HTTP',
      { url: 'http://svc:8080/health' },
      {
        kind: 'http',
        url: 'http://svc:8080/health',
        method: 'GET',
        status: 200,
        headers: {},
        body: '',
        pollMs: 1000,
        requestTimeoutMs: 10_000,
      },
    ],
  ])('reads %s', (_name, command, config, want) => {
    expect(planOf(command, config)).toEqual(want);
  });

  it('expands the step variables in settings', () => {
    expect(planOf('duration', { duration: '${PAUSE}' }, { PAUSE: '2s' })).toEqual({ kind: 'duration', ms: 2000 });
  });

  it.each([
    ['a missing duration', 'duration', {}, 'wait: duration is required for duration'],
    [
      'a duration without a unit',
      'duration',
      { duration: '5' },
      'wait: duration must be a duration: invalid duration "5"',
    ],
    ['a duration of zero', 'duration', { duration: '0s' }, 'wait: duration must be greater than 0'],
    [
      'a time that is not RFC 3339',
      'until',
      { until: '2026-11-29 12:00' },
      'wait: until must be RFC3339 timestamp: "2026-11-29 12:00"',
    ],
    ['an unknown file state', 'file', { path: 'a', state: 'changed' }, 'wait: state must be "exists" or "missing"'],
    ['a relative url', 'http', { url: '/health' }, 'wait: url must be an absolute HTTP URL'],
    ['a url of another scheme', 'http', { url: 'ftp://h/a' }, 'wait: url must be an absolute HTTP URL'],
    ['a status out of range', 'http', { url: 'http://h', status: 99 }, 'wait: status must be between 100 and 599'],
    ['an empty poll interval', 'file', { path: 'a', poll_interval: ' ' }, 'wait: poll_interval must not be empty'],
    ['an unknown operation', 'forever', {}, 'wait: unsupported operation "forever"'],
    ['an unknown key', 'duration', { duration: '1s', every: 2 }, 'wait: unknown settings: every'],
  ])('refuses %s', (_name, command, config, message) => {
    expect(() => planOf(command, config)).toThrow(message);
  });
});

describe('runWait', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubedag-wait-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('waits out a duration and writes nothing', async () => {
    const io = captureIO();
    const started = Date.now();
    await expect(runWait(spec('duration', { duration: '150ms' }), io)).resolves.toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(io.out()).toBe('');
  });

  it('is over at once for a time already past', async () => {
    const started = Date.now();
    await expect(runWait(spec('until', { until: '2020-01-01T00:00:00Z' }), captureIO())).resolves.toBe(0);
    expect(Date.now() - started).toBeLessThan(100);
  });

  it('ends a long wait at once on a stop', async () => {
    const io = captureIO();
    const waiting = runWait(spec('duration', { duration: '1h' }), io);
    setTimeout(() => {
      io.stop();
    }, 50);
    await expect(waiting).rejects.toThrow();
  });

  it('waits until a file appears, then until it is gone', async () => {
    const io = captureIO({ cwd: dir });
    const appears = runWait(spec('file', { path: 'flag', poll_interval: '20ms' }), io);
    setTimeout(() => void writeFile(join(dir, 'flag'), 'x'), 80);
    await expect(appears).resolves.toBe(0);
    const gone = runWait(spec('file', { path: join(dir, 'flag'), state: 'missing', poll_interval: '20ms' }), io);
    setTimeout(() => void rm(join(dir, 'flag')), 80);
    await expect(gone).resolves.toBe(0);
  });
});
