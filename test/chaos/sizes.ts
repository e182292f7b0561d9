/**
 * How big a chaos run is: the integration test's short variant and `make chaos`'s long one
 * differ only in these, and the environment can change any of them:
 *
 *   KUBEDAG_CHAOS_RUNS            concurrent mixed runs while the operator is killed
 *   KUBEDAG_CHAOS_KILLS           operator SIGKILLs
 *   KUBEDAG_CHAOS_FAULT_RUNS      runs under way when kube-apiserver restarts and etcd pauses
 *   KUBEDAG_CHAOS_SEED            the kill moments' seed (printed by every run, to replay one)
 *   KUBEDAG_CHAOS_MAX_GAP_MS      longest wait between a takeover and the next kill
 *   KUBEDAG_CHAOS_SETTLE_SECONDS  how long runs may take after the faults before they count as stuck
 */

export interface ChaosSizes {
  readonly runs: number;
  readonly kills: number;
  readonly faultRuns: number;
  readonly seed: number;
  readonly maxGapMs: number;
  readonly settleMs: number;
}

export const SHORT: Omit<ChaosSizes, 'seed'> = { runs: 10, kills: 3, faultRuns: 8, maxGapMs: 3000, settleMs: 240_000 };
export const LONG: Omit<ChaosSizes, 'seed'> = {
  runs: 100,
  kills: 20,
  faultRuns: 30,
  maxGapMs: 4000,
  settleMs: 900_000,
};

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number of at least 0, not "${text}"`);
  return value;
}

export function chaosSizes(env: NodeJS.ProcessEnv, defaults: Omit<ChaosSizes, 'seed'>): ChaosSizes {
  return {
    runs: count(env, 'KUBEDAG_CHAOS_RUNS', defaults.runs),
    kills: count(env, 'KUBEDAG_CHAOS_KILLS', defaults.kills),
    faultRuns: count(env, 'KUBEDAG_CHAOS_FAULT_RUNS', defaults.faultRuns),
    seed: count(env, 'KUBEDAG_CHAOS_SEED', Math.floor(Math.random() * 2 ** 31)),
    maxGapMs: Math.max(200, count(env, 'KUBEDAG_CHAOS_MAX_GAP_MS', defaults.maxGapMs)),
    settleMs: count(env, 'KUBEDAG_CHAOS_SETTLE_SECONDS', defaults.settleMs / 1000) * 1000,
  };
}
