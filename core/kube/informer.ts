/**
 * A list-and-watch cache of one resource, with what @kubernetes/client-node's own informer
 * lacks: it restarts the watch after any error (that one stops on all but 410, and its stop()
 * reports an error), re-lists periodically, and says when the first list has been seen.
 * Cached objects are frozen: a reconciler that tries to mutate one fails loudly. Objects this
 * process wrote can be shown before their watch event arrives (`assume`), as client-go's
 * mutation cache does, so that work which follows a write at once does not act on the version
 * it just replaced.
 */
import { Watch, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import { statusCode } from './errors.ts';

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
  readonly log?: (message: string) => void;
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
  private abort: AbortController | undefined;
  /** Identifies the current watch; events and ends of an abandoned watch are ignored. */
  private current: object | undefined;
  private stopped = true;
  private synced = false;
  private failures = 0;
  private relistTimer: NodeJS.Timeout | undefined;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(options: InformerOptions<T>) {
    this.options = options;
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
    return this.assumed.size === 0 ? some : some.map((o) => this.shown(key(o.metadata?.namespace, o.metadata?.name), o) ?? o);
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

  /** Starts listing and watching; resolves once the first list is in the cache. */
  async start(): Promise<void> {
    this.stopped = false;
    await this.relist();
    const interval = this.options.relistIntervalMs ?? 300_000;
    this.relistTimer = setInterval(() => {
      void this.relist().catch((error: unknown) => {
        this.options.log?.(`relist ${this.options.path}: ${String(error)}`);
      });
    }, interval);
    this.relistTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.relistTimer);
    clearTimeout(this.restartTimer);
    this.cancelWatch();
    await Promise.resolve();
  }

  private cancelWatch(): void {
    this.current = undefined;
    this.abort?.abort();
    this.abort = undefined;
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
  private async relist(): Promise<void> {
    this.cancelWatch();
    const list = await this.options.list();
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
    await this.watch();
  }

  private async watch(): Promise<void> {
    if (this.stopped) return;
    const query: Record<string, string | boolean> = { resourceVersion: this.resourceVersion, allowWatchBookmarks: true };
    if (this.options.labelSelector !== undefined) query.labelSelector = this.options.labelSelector;
    if (this.options.fieldSelector !== undefined) query.fieldSelector = this.options.fieldSelector;
    const token = {};
    this.current = token;
    const controller = await new Watch(this.options.kc).watch(
      this.options.path,
      query,
      (phase: string, object: T) => {
        if (this.current === token) this.onEvent(phase, object);
      },
      (error: unknown) => {
        if (this.current === token) this.onDone(error);
      },
    );
    if (this.current === token) this.abort = controller;
    else controller.abort();
  }

  private onEvent(phase: string, object: T): void {
    this.failures = 0;
    if (phase === 'ERROR') {
      // 410 Gone: the resource version is too old; the watch ends and onDone re-lists.
      if (statusCode(object) === 410) this.resourceVersion = '';
      return;
    }
    if (object.metadata?.resourceVersion !== undefined) this.resourceVersion = object.metadata.resourceVersion;
    if (phase === 'BOOKMARK') return;
    if (phase === 'DELETED') {
      const id = key(object.metadata?.namespace, object.metadata?.name);
      const before = this.objects.get(id);
      this.objects.delete(id);
      this.assumed.delete(id);
      this.emit('delete', before ?? this.trimmed(object));
      return;
    }
    this.store(object);
  }

  /** Whatever ended the watch, start again: watching from where we were, or a fresh list. */
  private onDone(error: unknown): void {
    this.current = undefined;
    this.abort = undefined;
    if (this.stopped) return;
    const gone = statusCode(error) === 410 || this.resourceVersion === '';
    if (error !== null && error !== undefined && !gone) {
      this.failures += 1;
      this.options.log?.(`watch ${this.options.path}: ${error instanceof Error ? error.message : JSON.stringify(error)}`);
    }
    const delay = this.failures === 0 ? 0 : Math.min(100 * 2 ** this.failures, 30_000);
    this.restartTimer = setTimeout(() => {
      const restart = gone || this.failures > 3 ? this.relist() : this.watch();
      restart.catch((failure: unknown) => {
        this.failures += 1;
        this.onDone(failure);
      });
    }, delay);
    this.restartTimer.unref();
  }
}
