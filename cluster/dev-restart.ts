/**
 * When `make dev` starts an operator or API server again after it ended on its own: as the
 * kubelet restarts a Deployment's crashing container (CrashLoopBackOff), the wait doubling
 * with each quick end up to a cap and starting over once a start has run long enough, with
 * waits a developer's loop can bear (the kubelet's are 10 s, 5 min and 10 min). Pure.
 */
export const RESTART_POLICY = { firstDelayMs: 1000, maxDelayMs: 30_000, resetAfterMs: 120_000 } as const;

export interface Restart {
  /** How long to wait before starting it again. */
  readonly delayMs: number;
  /** Quick ends in a row, this one included: what the next end doubles from. */
  readonly streak: number;
}

/** The wait before the next start, given the quick ends before this one and how long this start ran. */
export function nextRestart(streak: number, ranForMs: number, policy = RESTART_POLICY): Restart {
  const quick = ranForMs >= policy.resetAfterMs ? 0 : streak;
  return { delayMs: Math.min(policy.firstDelayMs * 2 ** quick, policy.maxDelayMs), streak: quick + 1 };
}
