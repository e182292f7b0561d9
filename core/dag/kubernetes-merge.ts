/**
 * How a step's own kubernetes settings combine with the DAG-level defaults. The rule is
 * Dagu's, for its Kubernetes executor's DAG-level defaults: mappings merge key by key at every
 * depth, anything else (text, numbers, lists) is replaced whole, and the step wins. Lists are
 * not merged by name (env, volumes, tolerations): a step that lists env vars lists all of
 * them, as in Dagu. An empty mapping written by the step clears the DAG's (`labels: {}`).
 */
import type { DagKubernetesSettings, KubernetesSettings } from './kubernetes-model.ts';
import { isMapping } from './mapping.ts';

type Mapping = Readonly<Record<string, unknown>>;

/** A step's effective settings; undefined when neither level says anything. */
export function mergeKubernetes(
  defaults: DagKubernetesSettings | undefined,
  own: KubernetesSettings | undefined,
): KubernetesSettings | undefined {
  // The workspace belongs to the run, not to any one Pod.
  const { workspace, ...base } = defaults ?? {};
  const merged = mergeMappings(base, (own ?? {}) as Mapping);
  return Object.keys(merged).length === 0 ? undefined : merged;
}

/** Two mappings by the same rule: also used for the operator's security defaults under a DAG's own. */
export function mergeMappings(base: Mapping, over: Mapping): Mapping {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const before = merged[key];
    merged[key] =
      isMapping(value) && isMapping(before) && Object.keys(value).length > 0 ? mergeMappings(before, value) : value;
  }
  return merged;
}
