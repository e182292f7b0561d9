/**
 * Runs by what the contract addresses and filters them with, kept current from informer
 * events: a root run by DAG name and run id, the runs of a DAG, the descendants of a root run,
 * and root runs by status and by the UTC day they were created, so that a listing filtered by
 * name, status or date reads only the runs that can match (views/run-listing.ts).
 */
import type { DagRunResource } from '../core/resources/types.ts';
import { runIdentity } from './views/identity.ts';
import { runStatusOf } from './views/runs.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The UTC day (days since the epoch) a run was created on. */
export function creationDay(run: DagRunResource): number {
  return Math.floor(Date.parse(String(run.metadata?.creationTimestamp ?? 0)) / DAY_MS) || 0;
}

interface Filed {
  readonly key?: string;
  readonly dag?: string;
  readonly root?: string;
  readonly status?: number;
  readonly day?: number;
}

export class RunIndex {
  private readonly byKey = new Map<string, string>();
  private readonly byDag = new Map<string, Set<string>>();
  private readonly byRoot = new Map<string, Set<string>>();
  private readonly byStatus = new Map<number, Set<string>>();
  private readonly byDay = new Map<number, Set<string>>();
  /** The keys each resource was filed under, to unfile it when it changes or goes. */
  private readonly filed = new Map<string, Filed>();

  private readonly lookup: (resourceName: string) => DagRunResource | undefined;

  constructor(lookup: (resourceName: string) => DagRunResource | undefined) {
    this.lookup = lookup;
  }

  /** Grows with every change to any run: answers built from all runs can be kept until it moves. */
  generation = 0;

  update(run: DagRunResource, deleted: boolean): void {
    this.generation += 1;
    const resource = run.metadata?.name ?? '';
    this.unfile(resource);
    if (deleted) return;
    const id = runIdentity(run);
    const rootKey = `${id.rootName}/${id.rootId}`;
    if (id.parentId === '') {
      const key = `${id.name}/${id.dagRunId}`;
      const status = runStatusOf(run);
      const day = creationDay(run);
      this.byKey.set(key, resource);
      add(this.byDag, id.name, resource);
      add(this.byStatus, status, resource);
      add(this.byDay, day, resource);
      this.filed.set(resource, { key, dag: id.name, status, day });
    } else {
      add(this.byRoot, rootKey, resource);
      this.filed.set(resource, { root: rootKey });
    }
  }

  /** A root run by DAG name and run id. */
  run(name: string, dagRunId: string): DagRunResource | undefined {
    const resource = this.byKey.get(`${name}/${dagRunId}`);
    return resource === undefined ? undefined : this.lookup(resource);
  }

  /** The root runs listed under a DAG name. */
  runsOf(name: string): DagRunResource[] {
    return this.resolve(this.byDag.get(name));
  }

  dagNames(): string[] {
    return [...this.byDag.keys()];
  }

  /** Root runs with this status. */
  runsWithStatus(status: number): DagRunResource[] {
    return this.resolve(this.byStatus.get(status));
  }

  /** Root runs created on the UTC days from `fromMs` to `toMs` (either open); the caller checks the exact times. */
  runsCreatedBetween(fromMs: number | undefined, toMs: number | undefined): DagRunResource[] {
    const first = fromMs === undefined ? Number.NEGATIVE_INFINITY : Math.floor(fromMs / DAY_MS);
    const last = toMs === undefined ? Number.POSITIVE_INFINITY : Math.floor(toMs / DAY_MS);
    return [...this.byDay.entries()]
      .filter(([day]) => day >= first && day <= last)
      .flatMap(([, names]) => this.resolve(names));
  }

  /** Every sub run (at any depth) of a root run. */
  descendants(rootName: string, rootId: string): DagRunResource[] {
    return this.resolve(this.byRoot.get(`${rootName}/${rootId}`));
  }

  private resolve(names: Set<string> | undefined): DagRunResource[] {
    return [...(names ?? [])].flatMap((n) => this.lookup(n) ?? []);
  }

  private unfile(resource: string): void {
    const was = this.filed.get(resource);
    if (was === undefined) return;
    if (was.key !== undefined && this.byKey.get(was.key) === resource) this.byKey.delete(was.key);
    if (was.dag !== undefined) remove(this.byDag, was.dag, resource);
    if (was.root !== undefined) remove(this.byRoot, was.root, resource);
    if (was.status !== undefined) remove(this.byStatus, was.status, resource);
    if (was.day !== undefined) remove(this.byDay, was.day, resource);
    this.filed.delete(resource);
  }
}

function add<K>(map: Map<K, Set<string>>, key: K, value: string): void {
  const set = map.get(key) ?? new Set<string>();
  set.add(value);
  map.set(key, set);
}

function remove<K>(map: Map<K, Set<string>>, key: K, value: string): void {
  const set = map.get(key);
  set?.delete(value);
  if (set?.size === 0) map.delete(key);
}
