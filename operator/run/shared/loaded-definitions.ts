/**
 * Loaded definitions of running runs. Loading one (read its frozen definition, parse,
 * validate, normalise) is the costliest work of a reconcile; a running run's spec only changes
 * by `stop`, so a definition is loaded once per generation and prepared values, and shared by
 * the run controller and the log archiver. A definition frozen into a segment never changes:
 * it is read once per run (its uid tells a namesake apart) and kept while the run runs.
 * Finished runs leave the cache; what they need is loaded for that use (`once`) or read from
 * the facts their spec carries (core/resources/frozen.ts).
 */
import { dagPolicyProblems, type PolicyContext } from '../../../core/policy/index.ts';
import { definitionPlace } from '../../../core/resources/frozen.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { namespaceProblems, runDefinition, type RunDefinition } from '../decide/run-definition.ts';
import { runRef } from '../ref.ts';

/** The definition in the segment a run names, or undefined while it has none of its own. */
export type ReadDefinition = (run: DagRunResource) => Promise<Record<string, unknown> | undefined>;

/**
 * A run's definition loaded from its frozen source as written. With `policy` (the run's
 * namespace's pod policy, docs/pod-policy.md), a DAG above it is rejected like any other run
 * that cannot start: before anything is created, with a Warning Event naming field and level.
 */
export function loadDefinition(
  run: DagRunResource,
  source: Record<string, unknown>,
  prepared = run.status?.prepared,
  policy?: PolicyContext,
): RunDefinition {
  const definition = runDefinition(source, runRef(run).dagName, run.spec.params, prepared);
  const misplaced = namespaceProblems(definition.dag, run.metadata?.namespace ?? '');
  const above = policy === undefined ? [] : dagPolicyProblems(definition.dag, policy);
  if (misplaced.length === 0 && above.length === 0) return definition;
  return {
    ...definition,
    rejection: [definition.rejection, ...misplaced, ...above].filter((p) => p !== undefined).join('; '),
  };
}

/**
 * The definition a run's spec holds: its snapshot or inline definition; nothing (no steps) for
 * a run frozen into a segment or never frozen.
 */
export function specDefinition(run: DagRunResource): Record<string, unknown> {
  const place = definitionPlace(run);
  return place.in === 'spec' ? place.definition : {};
}

interface Entry {
  readonly uid: string;
  /** The segment's definition as read, for a run frozen into one: a new generation or prepared values need no read. */
  readonly fromSegment?: Record<string, unknown>;
  readonly version?: string;
  readonly definition?: RunDefinition;
}

const versionOf = (run: DagRunResource): string =>
  `${run.metadata?.uid ?? ''}/${String(run.metadata?.generation ?? 0)}/${JSON.stringify(run.status?.prepared ?? null)}`;

/** The pod policy of a namespace (operator/policy.ts). */
export type RunPolicy = (namespace: string) => PolicyContext;

export class DefinitionCache {
  private readonly read: ReadDefinition;
  private readonly policy: RunPolicy | undefined;
  /** By run key. */
  private readonly entries = new Map<string, Entry>();

  constructor(read: ReadDefinition, policy?: RunPolicy) {
    this.read = read;
    this.policy = policy;
  }

  private loaded(run: DagRunResource, source: Record<string, unknown>): RunDefinition {
    return loadDefinition(run, source, run.status?.prepared, this.policy?.(run.metadata?.namespace ?? ''));
  }

  /** The run's definition as kept for its current version, if it was loaded: for sync callers that can do without. */
  get(run: DagRunResource): RunDefinition | undefined {
    const entry = this.entries.get(runRef(run).key);
    return entry?.version === versionOf(run) ? entry.definition : undefined;
  }

  /** The run's definition, kept while it runs; undefined while its segment cannot be read. */
  async load(run: DagRunResource): Promise<RunDefinition | undefined> {
    const kept = this.get(run);
    if (kept !== undefined) return kept;
    const { key, uid } = runRef(run);
    const entry = this.entries.get(key);
    const source = await this.sourceOf(run, entry?.uid === uid ? entry.fromSegment : undefined);
    if (source === undefined) return undefined;
    const definition = this.loaded(run, source.definition);
    this.entries.set(key, {
      uid,
      ...(source.fromSegment ? { fromSegment: source.definition } : {}),
      version: versionOf(run),
      definition,
    });
    return definition;
  }

  /** The definition of a run seen once (a finished run: retries, mails, logs), not kept. */
  async once(run: DagRunResource): Promise<RunDefinition | undefined> {
    const kept = this.get(run);
    if (kept !== undefined) return kept;
    const source = await this.sourceOf(run, undefined);
    return source === undefined ? undefined : this.loaded(run, source.definition);
  }

  /** A definition the freezer has just written for the run: read by nobody again. */
  keep(run: DagRunResource, definition: Record<string, unknown>): void {
    this.entries.set(runRef(run).key, { uid: runRef(run).uid, fromSegment: definition });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  private async sourceOf(
    run: DagRunResource,
    fromSegment: Record<string, unknown> | undefined,
  ): Promise<{ readonly definition: Record<string, unknown>; readonly fromSegment: boolean } | undefined> {
    if (definitionPlace(run).in !== 'segment') return { definition: specDefinition(run), fromSegment: false };
    const definition = fromSegment ?? (await this.read(run));
    return definition === undefined ? undefined : { definition, fromSegment: true };
  }
}
