import { describe, expect, it } from 'vitest';
import { dagRetryDelayMs } from './dag-retry.ts';
import { loadDag } from './load.ts';

const loaded = (yaml: string) => loadDag(`${yaml}\nsteps: [{run: echo}]`, { fileName: 'a' });

describe("Dagu 2.x's DAG-level retry_policy", () => {
  it('reads the policy concrete, numeric strings too, backoff true as 2', () => {
    const { dag, errors } = loaded(
      'retry_policy: {limit: "2", interval_sec: 5, backoff: true, max_interval_sec: "30"}',
    );
    expect(errors).toEqual([]);
    expect(dag.retryPolicy).toEqual({ limit: 2, intervalSec: 5, backoff: 2, maxIntervalSec: 30 });
  });

  it("fills Dagu's defaults: 60 s, at most 3600 s, no backoff", () => {
    expect(loaded('retry_policy: {limit: 1}').dag.retryPolicy).toEqual({
      limit: 1,
      intervalSec: 60,
      maxIntervalSec: 3600,
    });
  });

  it('leaves a DAG without one as it was', () => {
    expect(loaded('name: a').dag).not.toHaveProperty('retryPolicy');
  });

  it.each([
    ['a negative limit', 'retry_policy: {limit: -1}', 'retry_policy.limit: must be >= 0'],
    ['a zero interval', 'retry_policy: {limit: 1, interval_sec: 0}', 'retry_policy.interval_sec: must be > 0'],
    ['a variable', 'retry_policy: {limit: "${N}"}', 'retry_policy.limit: must be an integer or numeric string'],
    [
      'a backoff of 1',
      'retry_policy: {limit: 1, backoff: 1}',
      'retry_policy.backoff: must be greater than 1 (or true for 2), not 1',
    ],
  ])('refuses %s', (_name, yaml, want) => {
    expect(loaded(yaml).errors.map((e) => `${e.path}: ${e.message}`)).toEqual([want]);
  });

  it('waits interval * backoff^n, capped, or the interval alone without backoff', () => {
    const policy = { limit: 5, intervalSec: 10, backoff: 3, maxIntervalSec: 60 };
    expect([0, 1, 2].map((n) => dagRetryDelayMs(policy, n))).toEqual([10_000, 30_000, 60_000]);
    expect(dagRetryDelayMs({ limit: 5, intervalSec: 10, maxIntervalSec: 60 }, 4)).toBe(10_000);
  });
});
