/**
 * A list-and-watch cache of one resource, with what @kubernetes/client-node's own informer
 * lacks: watches that live for minutes (server-side timeouts, bookmarks: core/kube/watch.ts),
 * a restart after any error with backoff and one log line per streak of failures (that one
 * stops on all but 410: core/kube/watch-policy.ts decides), a periodic re-list, and a word on
 * when the first list has been seen.
 * Cached objects are frozen: a reconciler that tries to mutate one fails loudly. Objects this
 * process wrote can be shown before their watch event arrives (`assume`), as client-go's
 * mutation cache does, so that work which follows a write at once does not act on the version
 * it just replaced.
 */
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../log.ts';
import { dropConnections } from './connections.ts';
import { startWatch, type OpenWatch } from './watch.ts';
import {
  afterWatch,
  DEFAULT_WATCH_TIMEOUTS,
  failed,
  HEALTHY,
  recovered,
  watchTimeoutSeconds,
  type LogLevel,
  type Next,
  type Streak,
  type WatchTimeouts,
} from './watch-policy.ts';

export type InformerEvent = 'add' | 'update' | 'delete';
export type InformerHandler<T> = (event: InformerEvent, object: T) => void;

export interface InformerOptions<T extends KubernetesObject> {
  readonly kc: KubeConfig;
  /** The watch path, e.g. `/apis/kubedag.io/v1alpha1/dagruns` or `/api/v1/namespaces/x/pods`. */
  readonly path: string;
  readonly list: () => Promise<KubernetesListObject<T>>;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** A fresh list now and then, so that a missed event cannot leave the cache wrong for long. */
  readonly relistIntervalMs?: number;
  /**
   * Applied to every listed, watched or assumed object before it is cached and handed to the
   * handlers: a long-lived cache need not keep what its readers never look at (managedFields,
   * most of a Pod). It must keep `metadata.namespace`, `name` and `resourceVersion`, and must
   * not mutate its argument (the object may be a write's answer that its caller still holds).
   */
  readonly transform?: (object: T) => T;
  /** Server-side watch timeout and the client's grace past it; tests shorten them. */
  readonly watchTimeouts?: WatchTimeouts;
  readonly log?: InformerLog;
}

export type InformerLog = (level: LogLevel | 'error', message: string) => void;

/** An informer's lines on a program's logger. */
export function informerLog(logger: Pick<Logger, LogLevel | 'error'>): InformerLog {
  return (level, message) => {
    logger[level](message);
  };
}

export interface InformerStats {
  /** Lists made, the first included. */
  readonly lists: number;
  /** Watches opened. */
  readonly watches: number;
  /** Watches the server ended at their timeout, as it should. */
  readonly serverEnds: number;
  /** Failed watches and lists. */
  readonly failures: number;
}

const key = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export class Informer<T extends KubernetesObject> {
  private readonly options: InformerOptions<T>;
  private readonly objects = new Map<string, T>();
  private readonly handlers: InformerHandler<T>[] = [];
  /** Written objects by key, with the version each write replaced. */
  private readonly assumed = new Map<string, { readonly replaced: string | undefined; readonly object: T }>();
  private resourceVersion = '';
  private open: OpenWatch | undefined;
  /** Grows at every (re)start; events and ends of an abandoned watch or list are ignored. */
  private epoch = 0;
  private stopped = true;
  private synced = false;
  private streak: Streak = HEALTHY;
  private readonly counts = { lists: 0, watches: 0, serverEnds: 0, failures: 0 };
  private readonly timeouts: WatchTimeouts;
  private relistTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(options: InformerOptions<T>) {
    this.options = options;
    this.timeouts = options.watchTimeouts ?? DEFAULT_WATCH_TIMEOUTS;
  }

  on(handler: InformerHandler<T>): void {
    this.handlers.push(handler);
  }

  get(namespace: string | undefined, name: string): T | undefined {
    const id = key(namespace, name);
    return this.shown(id, this.objects.get(id));
  }

  list(namespace?: string): T[] {
    const all = [...this.objects.values()];
    const some = namespace === undefined ? all : all.filter((o) => o.metadata?.namespace === namespace);
    return this.assumed.size === 0
      ? some
      : some.map((o) => this.shown(key(o.metadata?.namespace, o.metadata?.name), o) ?? o);
  }

  /**
   * A write of this process succeeded and answered `object`: until the cache holds something
   * other than `replaced` (the version the write was made on), `get` and `list` show `object`.
   * The watch's event for the write, or any later one, ends it. Handlers hear of the write
   * now, as an update, and not again when the watch brings that same version: every change
   * reaches them once, whether this process made it or another did.
   */
  assume(object: T, replaced: string | undefined): void {
    const id = key(object.metadata?.namespace, object.metadata?.name);
    if (this.objects.get(id)?.metadata?.resourceVersion !== replaced) return;
    const trimmed = deepFreeze(this.trimmed(object));
    this.assumed.set(id, { replaced, object: trimmed });
    this.emit('update', trimmed);
  }

  private trimmed(object: T): T {
    return this.options.transform === undefined ? object : this.options.transform(object);
  }

  private shown(id: string, cached: T | undefined): T | undefined {
    const assumed = this.assumed.get(id);
    if (assumed === undefined) return cached;
    if (cached !== undefined && cached.metadata?.resourceVersion === assumed.replaced) return assumed.object;
    this.assumed.delete(id);
    return cached;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** The resourceVersion the next watch starts from: the last list's, event's or bookmark's. */
  lastResourceVersion(): string {
    return this.resourceVersion;
  }

  /** Lists, watches and their ends so far, for tests and metrics. */
  stats(): InformerStats {
    return { ...this.counts };
  }

  /** Starts listing and watching; resolves once the first list is in the cache. */
  async start(): Promise<void> {
    this.stopped = false;
    const epoch = this.advance();
    const list = await this.options.list();
    if (epoch !== this.epoch) return;
    this.replace(list);
    this.watch(epoch);
    const interval = this.options.relistIntervalMs ?? 300_000;
    this.relistTimer = setInterval(() => {
      this.schedule('list', 0);
    }, interval);
    this.relistTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.relistTimer);
    this.advance();
    await Promise.resolve();
  }

  /**
   * A new epoch: whatever the previous one had under way (a watch, a list, a timer) is
   * abandoned, and its results, should they still arrive, are ignored.
   */
  private advance(): number {
    this.epoch += 1;
    clearTimeout(this.restartTimer);
    this.open?.cancel();
    this.open = undefined;
    return this.epoch;
  }

  private emit(event: InformerEvent, object: T): void {
    for (const handler of this.handlers) handler(event, object);
  }

  private store(received: T): void {
    const object = this.trimmed(received);
    const id = key(object.metadata?.namespace, object.metadata?.name);
    const before = this.objects.get(id);
    const announced = this.assumed.get(id)?.object.metadata?.resourceVersion === object.metadata?.resourceVersion;
    this.objects.set(id, deepFreeze(object));
    this.shown(id, object);
    if (!announced) this.emit(before === undefined ? 'add' : 'update', object);
  }

  /** A full list replaces the cache: what vanished is reported deleted. */
  private replace(list: KubernetesListObject<T>): void {
    this.counts.lists += 1;
    const seen = new Set<string>();
    for (const item of list.items) {
      seen.add(key(item.metadata?.namespace, item.metadata?.name));
      const before = this.objects.get(key(item.metadata?.namespace, item.metadata?.name));
      if (before?.metadata?.resourceVersion !== item.metadata?.resourceVersion) this.store(item);
    }
    for (const [id, object] of this.objects) {
      if (!seen.has(id)) {
        this.objects.delete(id);
        this.assumed.delete(id);
        this.emit('delete', object);
      }
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    this.synced = true;
  }

  /** Lists (or watches) again after `delayMs`, in a new epoch. */
  private schedule(action: 'watch' | 'list', delayMs: number): void {
    if (this.stopped) return;
    const epoch = this.advance();
    this.restartTimer = setTimeout(() => {
      if (action === 'watch') {
        this.watch(epoch);
        return;
      }
      this.options.list().then(
        (list) => {
          if (epoch !== this.epoch) return;
          this.replace(list);
          this.healthy();
          this.watch(epoch);
        },
        (error: unknown) => {
          if (epoch === this.epoch) this.follow(failed(describe(error), this.streak, Math.random(), 'list'));
        },
      );
    }, delayMs);
    this.restartTimer.unref();
  }

  private watch(epoch: number): void {
    if (this.stopped || epoch !== this.epoch) return;
    const query: Record<string, string | boolean> = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
    };
    if (this.options.labelSelector !== undefined) query.labelSelector = this.options.labelSelector;
    if (this.options.fieldSelector !== undefined) query.fieldSelector = this.options.fieldSelector;
    this.counts.watches += 1;
    let first = true;
    const open = startWatch({
      kc: this.options.kc,
      path: this.options.path,
      query,
      timeoutSeconds: watchTimeoutSeconds(this.timeouts, Math.random()),
      graceMs: this.timeouts.graceMs,
      onEvent: (type, object) => {
        if (epoch !== this.epoch) return;
        if (first) {
          first = false;
          this.healthy();
        }
        this.onEvent(type, object as T);
      },
    });
    this.open = open;
    void open.done.then((outcome) => {
      if (epoch !== this.epoch || this.stopped) return;
      this.open = undefined;
      const next = afterWatch(outcome, this.streak, Math.random());
      if (outcome.end.kind === 'closed' && next.streak.failures === 0) this.counts.serverEnds += 1;
      this.follow(next);
    });
  }

  /** Carries out a decision of watch-policy.ts. */
  private follow(next: Next): void {
    if (next.streak.failures > this.streak.failures) this.counts.failures += 1;
    this.streak = next.streak;
    if (next.log !== undefined) this.say(next.log.level, next.log.message);
    if (next.reconnect === true) dropConnections(this.options.kc);
    if (next.action !== 'none') this.schedule(next.action, next.delayMs);
  }

  private healthy(): void {
    const back = recovered(this.streak);
    this.streak = back.streak;
    if (back.log !== undefined) this.say(back.log.level, back.log.message);
  }

  private say(level: LogLevel | 'error', message: string): void {
    this.options.log?.(level, `watch ${this.options.path}: ${message}`);
  }

  private onEvent(phase: string, object: T): void {
    if (object.metadata?.resourceVersion !== undefined) this.resourceVersion = object.metadata.resourceVersion;
    if (phase === 'BOOKMARK') return;
    try {
      if (phase === 'DELETED') {
        const id = key(object.metadata?.namespace, object.metadata?.name);
        const before = this.objects.get(id);
        this.objects.delete(id);
        this.assumed.delete(id);
        this.emit('delete', before ?? this.trimmed(object));
        return;
      }
      this.store(object);
    } catch (error) {
      // A handler's bug must not end the watch (it would come back at every restart).
      this.say(
        'error',
        `a handler failed on ${phase} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}: ${describe(error)}`,
      );
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
