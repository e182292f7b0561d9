/**
 * The definitions runs were frozen with (core/resources/frozen.ts), for the answers that show
 * steps (run details, a DAG's history and details) and for retries and reschedules. A frozen
 * definition never changes, so a loaded one is kept by run uid and where it is, across the
 * run's status changes; and runs of one DAG version share one loaded definition (kept by its
 * text), so a DAG's history loads its definition once. The loaded definitions are bounded by
 * the size of their text (a loaded DAG takes about 17 times its JSON in memory), least recently
 * used going first: retained history never grows the API server's memory.
 */
import { createHash } from 'node:crypto';
import type { Dag } from '../core/dag/index.ts';
import type { ResourceClient } from '../core/kube/client.ts';
import { readFrozenDefinition } from '../core/kube/frozen-definitions.ts';
import { loadDagSpec } from '../core/resources/dag.ts';
import { definitionPlace } from '../core/resources/frozen.ts';
import type { DagRunResource, DagRunSegmentResource } from '../core/resources/types.ts';
import { runIdentity } from './views/identity.ts';

/** JSON bytes of loaded definitions kept: five of 10,000 steps (~35 MB loaded), or thousands of small ones. */
export const KEPT_DEFINITION_BYTES = 2 * 1024 * 1024;
/** Loaded definitions kept at most, whatever their size. */
export const KEPT_DEFINITIONS = 1000;
/** Runs whose definition's digest is remembered (about 150 bytes each). */
export const KEPT_RUNS = 20_000;

interface Kept {
  readonly dag: Dag;
  readonly bytes: number;
}

/** Least recently used first: a hit moves an entry to the end. */
function touch<K, V>(map: Map<K, V>, key: K): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

export class RunDefinitions {
  private readonly client: ResourceClient<DagRunSegmentResource>;
  private readonly limit: number;
  /** By run uid and where its definition is: the digest of the text loaded for it. */
  private readonly digests = new Map<string, string>();
  /** By digest of the text (and the name it was loaded under). */
  private readonly loaded = new Map<string, Kept>();
  private held = 0;
  private readonly loading = new Map<string, Promise<Dag | undefined>>();

  constructor(client: ResourceClient<DagRunSegmentResource>, limit = KEPT_DEFINITION_BYTES) {
    this.client = client;
    this.limit = limit;
  }

  /** The frozen definition as written; undefined for a run not frozen yet, or whose segment is not written yet. */
  async source(run: DagRunResource): Promise<Record<string, unknown> | undefined> {
    const place = definitionPlace(run);
    if (place.in === 'spec') return place.definition;
    return place.in === 'segment' ? readFrozenDefinition(this.client, run) : undefined;
  }

  /** The loaded definition; undefined when there is none to show yet. */
  async dag(run: DagRunResource): Promise<Dag | undefined> {
    const place = definitionPlace(run);
    const key = `${run.metadata?.uid ?? ''}/${place.in === 'segment' ? place.segment : place.in}`;
    const digest = touch(this.digests, key);
    const found = digest === undefined ? undefined : touch(this.loaded, digest);
    if (found !== undefined) return found.dag;
    // Requests for a run's details come in bursts (a page, its polls): one load serves them all.
    let loading = this.loading.get(key);
    if (loading === undefined) {
      loading = this.load(key, run).finally(() => this.loading.delete(key));
      this.loading.set(key, loading);
    }
    return loading;
  }

  private async load(key: string, run: DagRunResource): Promise<Dag | undefined> {
    const source = await this.source(run);
    if (source === undefined) return undefined;
    const fileName = run.spec.dagName ?? runIdentity(run).name;
    const text = JSON.stringify(source);
    const digest = createHash('sha256').update(fileName).update('\u0000').update(text).digest('base64url');
    this.remember(key, digest);
    const shared = touch(this.loaded, digest);
    if (shared !== undefined) return shared.dag;
    const dag = loadDagSpec(source, { fileName }).dag;
    this.keep(digest, { dag, bytes: text.length });
    return dag;
  }

  private remember(key: string, digest: string): void {
    this.digests.set(key, digest);
    for (const oldest of this.digests.keys()) {
      if (this.digests.size <= KEPT_RUNS) break;
      this.digests.delete(oldest);
    }
  }

  /** Keeps the newest always, then drops the least recently used until both bounds hold. */
  private keep(digest: string, entry: Kept): void {
    this.loaded.set(digest, entry);
    this.held += entry.bytes;
    for (const [oldest, { bytes }] of this.loaded) {
      if ((this.held <= this.limit && this.loaded.size <= KEPT_DEFINITIONS) || oldest === digest) break;
      this.loaded.delete(oldest);
      this.held -= bytes;
    }
  }
}
