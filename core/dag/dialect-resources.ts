/**
 * Dagu 2.x's DAG-level `resources: {limits: {cpu, memory}}`: the CPU and memory a run may use.
 * Dagu puts the limits on the cgroup of the run's process tree, or on each container it creates
 * (v2.15.1 internal/ir/resources.go, runtime/agent). Every Kubedag step is a Pod, so the limits
 * become the DAG-level `kubernetes.resources.limits` that every step Pod's container carries;
 * steps that run at the same time each get the whole limit, as Dagu's containers do.
 *
 * Dagu reads the quantities itself, not as Kubernetes does: memory `512m` or `512MB` is 512
 * million bytes (Kubernetes reads `512m` as half a byte), `1gib` is 1 GiB. So the values are
 * parsed by Dagu's rules and written as Kubernetes quantities of the same amount: CPU in
 * millicores (`1500m`), memory in bytes.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** Dagu's memory suffixes (any letter case) and what each multiplies by. */
const MEMORY_SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  ...Object.fromEntries(
    ['k', 'm', 'g', 't', 'p', 'e'].flatMap((prefix, i) => [
      [prefix, 1000 ** (i + 1)],
      [`${prefix}b`, 1000 ** (i + 1)],
      [`${prefix}i`, 1024 ** (i + 1)],
      [`${prefix}ib`, 1024 ** (i + 1)],
    ]),
  ),
};

/** A CPU limit in millicores, by Dagu's rule: `<n>m`, or cores with at most three decimals; above zero. */
export function cpuMillis(text: string): number | string {
  const value = text.trim();
  const milli = /^(\d+)m$/.exec(value);
  const cores = /^(\d+)(?:\.(\d{1,3}))?$/.exec(value);
  const millis =
    milli !== null
      ? Number(milli[1])
      : cores !== null
        ? Number(cores[1]) * 1000 + Number((cores[2] ?? '').padEnd(3, '0'))
        : undefined;
  if (millis === undefined) return `"${text}" is not a CPU amount such as 500m, 2 or 1.5`;
  if (millis <= 0) return 'must be greater than zero';
  if (!Number.isSafeInteger(millis)) return 'is too large';
  return millis;
}

/** A memory limit in bytes, by Dagu's rule: a number and one of its suffixes; above zero after rounding. */
export function memoryBytes(text: string): number | string {
  const value = text.trim();
  const match = /^(.*?)([a-zA-Z]*)$/.exec(value);
  const multiplier = MEMORY_SUFFIXES[(match?.[2] ?? '').toLowerCase()];
  const amount = /^\d*\.?\d+$|^\d+\.$/.test(match?.[1] ?? '') ? Number(match?.[1]) : Number.NaN;
  if (multiplier === undefined || Number.isNaN(amount))
    return `"${text}" is not a memory amount such as 512Mi, 2G or 1gib`;
  const bytes = Math.round(amount * multiplier);
  if (bytes <= 0) return 'must be greater than zero';
  if (!Number.isSafeInteger(bytes)) return 'is too large';
  return bytes;
}

const LIMITS = { cpu: (millis: number) => `${String(millis)}m`, memory: (bytes: number) => String(bytes) };

/** The document with `resources` made the DAG-level kubernetes block's limits. */
export function withResourceLimits(document: Mapping, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(document, 'resources')) return document;
  const { resources, ...rest } = document;
  if (resources === null) return rest;
  const limits = limitsOf(resources, errors);
  if (Object.keys(limits).length === 0) return rest;
  const kubernetes = rest.kubernetes ?? {};
  if (!isMapping(kubernetes)) return rest; // the kubernetes block's own check reports it
  const kubeResources = kubernetes.resources ?? {};
  const kubeLimits = isMapping(kubeResources) ? (kubeResources.limits ?? {}) : undefined;
  if (!isMapping(kubeResources) || !isMapping(kubeLimits)) return rest;
  const merged: Mapping = { ...kubeLimits };
  for (const [name, value] of Object.entries(limits)) {
    if (Object.hasOwn(kubeLimits, name))
      errors.push(
        issue(
          childPath(childPath('resources', 'limits'), name),
          `kubernetes.resources.limits.${name} sets it already; write the limit once`,
        ),
      );
    else merged[name] = value;
  }
  return { ...rest, kubernetes: { ...kubernetes, resources: { ...kubeResources, limits: merged } } };
}

function limitsOf(resources: unknown, errors: DagIssue[]): Mapping {
  if (!isMapping(resources)) {
    errors.push(issue('resources', 'must be a mapping: {limits: {cpu, memory}}'));
    return {};
  }
  for (const key of Object.keys(resources).filter((k) => k !== 'limits'))
    errors.push(issue(childPath('resources', key), 'is not a resources key (resources takes limits: {cpu, memory})'));
  const limits = resources.limits;
  if (limits === undefined || limits === null) return {};
  const at = childPath('resources', 'limits');
  if (!isMapping(limits)) {
    errors.push(issue(at, 'must be a mapping: {cpu, memory}'));
    return {};
  }
  const out: Mapping = {};
  for (const [key, value] of Object.entries(limits)) {
    const quantity = limitOf(key, value, childPath(at, key), errors);
    if (quantity !== undefined) out[key] = quantity;
  }
  return out;
}

/** One limit as a Kubernetes quantity; undefined when unset or wrong (then an error says why). */
function limitOf(key: string, value: unknown, path: string, errors: DagIssue[]): string | undefined {
  if (key !== 'cpu' && key !== 'memory') {
    errors.push(issue(path, 'is not a limit Dagu takes (limits takes cpu and memory)'));
    return undefined;
  }
  if (value === null || (typeof value === 'string' && value.trim() === '')) return undefined; // unset, as in Dagu
  if (typeof value !== 'string' && typeof value !== 'number') {
    errors.push(issue(path, 'must be a string or a number'));
    return undefined;
  }
  const parsed = key === 'cpu' ? cpuMillis(String(value)) : memoryBytes(String(value));
  if (typeof parsed !== 'string') return LIMITS[key](parsed);
  errors.push(issue(path, parsed));
  return undefined;
}
