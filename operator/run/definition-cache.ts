/**
 * Loaded definitions of running runs. Loading one (parse, validate, normalise) is the
 * costliest pure work of a reconcile; a running run's spec only changes by `stop`, so a
 * definition is loaded once per generation and prepared values, and shared by the run
 * controller and the log archiver. Finished runs leave the cache.
 */
import type { DagRunResource } from '../../core/resources/types.ts';
import { namespaceProblems, runDefinition, type RunDefinition } from './definition.ts';
import { runRef } from './ref.ts';

/** A run's definition, loaded now: for runs seen once (retries, retention), not worth caching. */
export function loadDefinition(run: DagRunResource, prepared = run.status?.prepared): RunDefinition {
  const definition = runDefinition(run.spec.snapshot ?? run.spec.definition ?? {}, runRef(run).dagName, run.spec.params, prepared);
  const misplaced = namespaceProblems(definition.dag, run.metadata?.namespace ?? '');
  if (misplaced.length === 0) return definition;
  return { ...definition, rejection: [definition.rejection, ...misplaced].filter((p) => p !== undefined).join('; ') };
}

export class DefinitionCache {
  /** By run key, with the version (uid, generation, prepared values) it was loaded for. */
  private readonly definitions = new Map<string, { readonly version: string; readonly definition: RunDefinition }>();

  get(run: DagRunResource): RunDefinition {
    const key = runRef(run).key;
    const version = `${run.metadata?.uid ?? ''}/${String(run.metadata?.generation ?? 0)}/${JSON.stringify(run.status?.prepared ?? null)}`;
    const cached = this.definitions.get(key);
    if (cached?.version === version) return cached.definition;
    const definition = loadDefinition(run);
    this.definitions.set(key, { version, definition });
    return definition;
  }

  forget(key: string): void {
    this.definitions.delete(key);
  }
}
