/**
 * Leader election on a coordination.k8s.io Lease, as client-go does it: take the Lease when it
 * is free or expired, renew it while leading, give up leadership the moment a renewal cannot
 * be made in time (another instance may take over after the lease duration). Tries that get
 * no answer count as failed once the renew window is over, as client-go bounds them by its
 * renew deadline: a request hanging on an API that does not answer (etcd stalled, a network
 * that drops packets) must not keep an instance leading past a Lease it did not renew. The
 * window opens when the leader starts trying, so a process that was merely busy (its timers
 * late) still gets its full window to renew.
 */
import { CoordinationV1Api, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { MicroTime, systemClock, type Clock } from './time.ts';
import { statusCode } from './errors.ts';

export interface LeaderOptions {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  /** This instance, e.g. `hostname_pid`. */
  readonly identity: string;
  readonly leaseDurationSeconds?: number;
  readonly retryPeriodMs?: number;
  readonly clock?: Clock;
  readonly log?: (message: string) => void;
}

export interface LeaderCallbacks {
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
}

/** Whether `lease` may be taken by `identity` at `now`. Pure. */
export function canAcquire(lease: V1Lease | undefined, identity: string, now: Date): boolean {
  const spec = lease?.spec;
  if (spec?.holderIdentity === undefined || spec.holderIdentity === '' || spec.holderIdentity === identity) return true;
  const renewed = spec.renewTime === undefined ? 0 : new Date(spec.renewTime).getTime();
  return renewed + (spec.leaseDurationSeconds ?? 15) * 1000 < now.getTime();
}

/**
 * How long a leader keeps trying to renew, from its first try after a renewal, before it
 * stops leading (client-go's renew deadline). A try starts at most a retry period after the
 * last renewal, so a leader that cannot renew stops within 80% of its Lease, before another
 * instance may take the Lease over. Pure.
 */
export function renewDeadlineMs(durationSeconds: number, retryPeriodMs: number): number {
  return Math.max(retryPeriodMs, durationSeconds * 1000 * 0.8 - retryPeriodMs);
}

/**
 * Whether an instance leads after an attempt at `nowMs`: it renewed, or it led and the renew
 * window that opened at `windowStartMs` is not over yet. Pure.
 */
export function stillLeading(
  renewed: boolean,
  leading: boolean,
  windowStartMs: number,
  deadlineMs: number,
  nowMs: number,
): boolean {
  return renewed || (leading && nowMs < windowStartMs + deadlineMs);
}

/**
 * How long one acquire-or-renew may wait for answers: a leader's until its renew window
 * closes, anyone else's a lease duration (so that a hung request does not stall it). Pure.
 */
export function attemptBudgetMs(
  leading: boolean,
  windowStartMs: number,
  deadlineMs: number,
  durationSeconds: number,
  nowMs: number,
): number {
  return leading ? Math.max(0, windowStartMs + deadlineMs - nowMs) : durationSeconds * 1000;
}

/** The attempt's result, or false once `ms` have passed without one (the attempt is left to settle unheard). */
async function within(attempt: Promise<boolean>, ms: number, onTimeout: () => void): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      onTimeout();
      resolve(false);
    }, ms);
  });
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class LeaderElector {
  private readonly options: LeaderOptions;
  private readonly api: CoordinationV1Api;
  private leading = false;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  /** The acquire-or-renew under way, if any: stop() waits for it. */
  private inFlight: Promise<void> | undefined;
  /** When the leader's current renew window opened: its first try since it last renewed. */
  private windowStart: number | undefined;
  private callbacks: LeaderCallbacks | undefined;

  constructor(options: LeaderOptions) {
    this.options = options;
    this.api = options.kc.makeApiClient(CoordinationV1Api);
  }

  isLeader(): boolean {
    return this.leading;
  }

  /** Tries now and then every retry period; callbacks fire on every change of leadership. */
  run(callbacks: LeaderCallbacks): void {
    this.callbacks = callbacks;
    const clock = this.options.clock ?? systemClock;
    const retryPeriod = this.options.retryPeriodMs ?? 2000;
    const deadline = renewDeadlineMs(this.duration(), retryPeriod);
    const tick = async (): Promise<void> => {
      const opened = this.windowStart ?? clock.now().getTime();
      if (this.leading) this.windowStart = opened;
      const budget = attemptBudgetMs(this.leading, opened, deadline, this.duration(), clock.now().getTime());
      const attempt = this.tryAcquireOrRenew().catch((error: unknown) => {
        this.options.log?.(`leader election: ${(error as Error).message}`);
        return false;
      });
      const ok = await within(attempt, budget, () =>
        this.options.log?.(`leader election: no answer within ${String(budget)} ms`),
      );
      // A renewal that was under way when stop() came must not announce leadership again;
      // stop() waits for it and gives the Lease up after it.
      if (this.stopped) return;
      // Leadership ends when renewals have failed for the whole renew window: stop before
      // another instance may legally take over.
      const leading = stillLeading(ok, this.leading, opened, deadline, clock.now().getTime());
      if (ok || !leading) this.windowStart = undefined;
      if (leading !== this.leading) {
        this.leading = leading;
        if (leading) callbacks.onStartedLeading();
        else callbacks.onStoppedLeading();
      }
      this.timer = setTimeout(() => {
        this.inFlight = tick();
      }, retryPeriod);
    };
    this.inFlight = tick();
  }

  /** Stops renewing and releases the Lease so that a successor need not wait for it to expire. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
    if (this.leading) {
      this.leading = false;
      this.callbacks?.onStoppedLeading();
    }
    // Given up if this instance holds it, also when a renewal in flight at stop() took it. A
    // Lease that cannot be read now (the API is away) expires by itself.
    const lease = await this.read().catch(() => undefined);
    if (lease?.spec?.holderIdentity !== this.options.identity) return;
    await this.api
      .replaceNamespacedLease({
        name: this.options.name,
        namespace: this.options.namespace,
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: '',
            renewTime: new MicroTime(),
            acquireTime: new MicroTime(new Date(lease.spec.acquireTime ?? Date.now()).getTime()),
          },
        },
      })
      .catch(() => undefined);
  }

  private duration(): number {
    return this.options.leaseDurationSeconds ?? 15;
  }

  private async read(): Promise<V1Lease | undefined> {
    try {
      return await this.api.readNamespacedLease({ name: this.options.name, namespace: this.options.namespace });
    } catch (error) {
      if (statusCode(error) === 404) return undefined;
      throw error;
    }
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = (this.options.clock ?? systemClock).now();
    const lease = await this.read();
    if (!canAcquire(lease, this.options.identity, now)) return false;
    const spec = nextLeaseSpec(lease, this.options.identity, this.duration(), now);
    try {
      if (lease === undefined)
        await this.api.createNamespacedLease({
          namespace: this.options.namespace,
          body: { metadata: { name: this.options.name, namespace: this.options.namespace }, spec },
        });
      else
        await this.api.replaceNamespacedLease({
          name: this.options.name,
          namespace: this.options.namespace,
          body: { ...lease, spec },
        });
      return true;
    } catch (error) {
      // Someone else wrote first (409): not ours this round.
      if (statusCode(error) === 409) return false;
      throw error;
    }
  }
}

/** The Lease spec after `identity` takes or renews it. Pure. */
export function nextLeaseSpec(
  lease: V1Lease | undefined,
  identity: string,
  durationSeconds: number,
  now: Date,
): NonNullable<V1Lease['spec']> {
  const renewTime = new MicroTime(now.getTime());
  const taking = lease?.spec?.holderIdentity !== identity;
  const acquired = lease?.spec?.acquireTime === undefined ? now : new Date(lease.spec.acquireTime);
  return {
    holderIdentity: identity,
    leaseDurationSeconds: durationSeconds,
    renewTime,
    // Every time field goes back as MicroTime, including the one read from the server.
    acquireTime: taking ? renewTime : new MicroTime(acquired.getTime()),
    leaseTransitions: (lease?.spec?.leaseTransitions ?? 0) + (taking && lease !== undefined ? 1 : 0),
  };
}
