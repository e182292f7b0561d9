/**
 * A work queue keyed by object: adding a key that is waiting does nothing, a key is worked on
 * by one worker at a time (an add during the work runs it once more afterwards), failures come
 * back with per-key exponential delay, and a worker can ask to be called again after a time.
 * The shape of client-go's rate-limited delaying queue, small enough to read in one go.
 */

export interface WorkResult {
  /** Call again for this key after this many milliseconds (timers: retries, deadlines). */
  readonly requeueAfterMs?: number;
}

export interface QueueOptions {
  readonly worker: (key: string) => Promise<WorkResult | undefined>;
  readonly concurrency: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onError?: (key: string, error: unknown) => void;
}

export class WorkQueue {
  private readonly options: QueueOptions;
  private readonly pending: string[] = [];
  private readonly queued = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private running = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(options: QueueOptions) {
    this.options = options;
  }

  /** Keys waiting or being worked on; the queue-depth metric. */
  get depth(): number {
    return this.queued.size + this.active.size;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.pending.push(key);
    this.pump();
  }

  /**
   * Adds the key ahead of every waiting key (or moves it there): for work that is on a clock,
   * such as a run let out of its queue that must start within seconds, behind a backlog.
   */
  addFirst(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) this.pending.splice(this.pending.indexOf(key), 1);
    this.queued.add(key);
    this.pending.unshift(key);
    this.pump();
  }

  /** Adds the key after a delay; an earlier pending timer for the key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const existing = this.timers.get(key);
    if (existing !== undefined && existing.at <= at) return;
    if (existing !== undefined) clearTimeout(existing.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Stops taking work and waits for the workers to finish what they hold. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.pending.length = 0;
    this.queued.clear();
    await this.idle();
  }

  /** Resolves when nothing is queued or running (for tests and shutdown). */
  idle(): Promise<void> {
    if (this.running === 0 && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (!this.stopped && this.running < this.options.concurrency && this.pending.length > 0) {
      const key = this.pending.shift() as string;
      this.queued.delete(key);
      this.active.add(key);
      this.running += 1;
      void this.work(key);
    }
  }

  private async work(key: string): Promise<void> {
    let retryInMs: number | undefined;
    try {
      const result = await this.options.worker(key);
      this.failures.delete(key);
      retryInMs = result?.requeueAfterMs;
    } catch (error) {
      const count = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, count);
      retryInMs = Math.min((this.options.baseDelayMs ?? 5) * 2 ** (count - 1), this.options.maxDelayMs ?? 60_000);
      this.options.onError?.(key, error);
    }
    this.active.delete(key);
    this.running -= 1;
    if (this.dirty.delete(key)) this.add(key);
    if (retryInMs !== undefined) this.addAfter(key, retryInMs);
    this.pump();
    if (this.running === 0 && this.pending.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
