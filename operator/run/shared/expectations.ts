/**
 * Step Pods and child runs this process decided on or created that its cache has not shown
 * yet (client-go's controller expectations). The engine must not take a Pod it has just
 * created for one that disappeared, and the operator's overall Pod cap must count Pods that
 * runs reconciled side by side are about to create. Entries end when the cache shows the
 * object, or after a minute, so a lost watch event cannot hold one forever.
 */
import type { Clock } from '../../../core/kube/time.ts';

const FORGET_AFTER_MS = 60_000;

export class Expectations {
  private readonly clock: Clock;
  /** Objects created here, by name, with the time. */
  private readonly created = new Map<string, number>();
  /** Step Pods decided on (not child runs), by name, with the time: what the overall cap counts. */
  private readonly claimed = new Map<string, number>();

  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** An object of this name was created (or found created): expect it in the cache. */
  expect(name: string): void {
    this.created.set(name, this.clock.now().getTime());
  }

  /** Created objects the cache does not show yet, given the names it shows. */
  pending(seen: ReadonlySet<string>): Set<string> {
    prune(this.created, seen, this.clock.now().getTime());
    return new Set(this.created.keys());
  }

  /** Claimed before any await, so that runs reconciled side by side share the overall cap. */
  claim(names: readonly string[]): void {
    const now = this.clock.now().getTime();
    for (const name of names) this.claimed.set(name, now);
  }

  /** Claims whose create failed: they hold no slot. */
  release(names: readonly string[]): void {
    for (const name of names) this.claimed.delete(name);
  }

  /** Claimed Pods the cache does not show yet, given the names it shows. */
  claimedCount(seen: ReadonlySet<string>): number {
    prune(this.claimed, seen, this.clock.now().getTime());
    return this.claimed.size;
  }
}

function prune(entries: Map<string, number>, seen: ReadonlySet<string>, now: number): void {
  for (const [name, at] of entries) if (seen.has(name) || now - at > FORGET_AFTER_MS) entries.delete(name);
}
