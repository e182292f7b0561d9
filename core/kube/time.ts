/** Clocks are injected so that timers and deadlines are testable. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * A Date that serialises with six fractional digits. Lease times are MicroTime, which
 * kube-apiserver refuses with fewer digits; @kubernetes/client-node writes three.
 */
export class MicroTime extends Date {
  override toISOString(): string {
    return super.toISOString().replace(/Z$/, '000Z');
  }
}

/** The HTTP status of an error thrown by @kubernetes/client-node, if it has one. */
export function statusCode(error: unknown): number | undefined {
  const value = error as { code?: unknown; statusCode?: unknown } | null;
  const code = value?.code ?? value?.statusCode;
  return typeof code === 'number' ? code : undefined;
}
