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
