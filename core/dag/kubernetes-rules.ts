/**
 * Rules over a step's effective kubernetes settings (DAG defaults merged with its own), which
 * no single block can be checked for alone: a mount must name a volume the Pod has, a request
 * may not exceed its limit, nodeSelector may not contradict workerSelector. A problem is
 * reported where the step wrote one of the settings involved; a problem the DAG-level block
 * has by itself is reported there, once.
 */
import { isExclusiveResource } from './kubernetes-checks.ts';
import type { KubernetesSettings } from './kubernetes-model.ts';
import { childPath, issue, nestIssues, type DagIssue } from './issues.ts';
import { compareQuantities, parseQuantity, type Quantity } from './quantity.ts';

type Field = keyof KubernetesSettings;

/** A problem at a path relative to the block, and the settings that together cause it. */
interface RuleProblem {
  readonly issue: DagIssue;
  readonly fields: readonly Field[];
}

/**
 * The problems of effective settings, at `path` (the block's path). With `own`, only those
 * that involve a setting the step wrote itself: the others belong to the DAG-level block.
 */
export function ruleProblems(
  settings: KubernetesSettings | undefined,
  path: string,
  own?: KubernetesSettings,
): DagIssue[] {
  if (settings === undefined) return [];
  const problems = [...mountRules(settings), ...resourceRules(settings, own)];
  const mine =
    own === undefined
      ? problems
      : problems.filter((problem) => problem.fields.some((field) => own[field] !== undefined));
  return nestIssues(
    path,
    mine.map((problem) => problem.issue),
  );
}

function mountRules(settings: KubernetesSettings): RuleProblem[] {
  const names = (settings.volumes ?? []).map((volume) => volume.name);
  const declared = names.length === 0 ? 'the Pod declares no volumes' : `the Pod's volumes are ${names.join(', ')}`;
  return (settings.volumeMounts ?? []).flatMap((mount, i) =>
    names.includes(mount.name)
      ? []
      : [
          {
            issue: issue(
              childPath(childPath('volumeMounts', i), 'name'),
              `"${mount.name}" is not a volume: ${declared}`,
            ),
            fields: ['volumes', 'volumeMounts'] as const,
          },
        ],
  );
}

/**
 * As the API server: a request may not exceed its limit, and resources Kubernetes never
 * overcommits (extended ones such as nvidia.com/gpu, hugepages) need a limit equal to the
 * request.
 */
function resourceRules(settings: KubernetesSettings, own: KubernetesSettings | undefined): RuleProblem[] {
  const limits = settings.resources?.limits ?? {};
  return Object.entries(settings.resources?.requests ?? {}).flatMap(([name, text]): RuleProblem[] => {
    // Point at what the step wrote: its limit, when the request is the DAG's.
    const limitOnly =
      own !== undefined && own.resources?.requests?.[name] === undefined && own.resources?.limits?.[name] !== undefined;
    const at = childPath(childPath('resources', limitOnly ? 'limits' : 'requests'), name);
    const message = requestProblem(name, text, limits[name], limitOnly);
    return message === undefined ? [] : [{ issue: issue(at, message), fields: ['resources'] }];
  });
}

function requestProblem(
  name: string,
  text: string,
  limitText: string | undefined,
  limitOnly: boolean,
): string | undefined {
  const request = quantity(text);
  if (request === undefined) return undefined;
  if (limitText === undefined)
    return isExclusiveResource(name)
      ? `${name} cannot be overcommitted: set limits.${name} to the same amount`
      : undefined;
  const limit = quantity(limitText);
  if (limit === undefined) return undefined;
  const order = compareQuantities(request, limit);
  if (order > 0)
    return limitOnly ? `${limitText} is less than the request ${text}` : `${text} is more than the limit ${limitText}`;
  return order < 0 && isExclusiveResource(name)
    ? `${name} cannot be overcommitted: the request must equal the limit ${limitText}`
    : undefined;
}

/** Values already reported by the per-value checks count as absent here. */
function quantity(text: string): Quantity | undefined {
  const value = parseQuantity(text);
  return typeof value === 'string' ? undefined : value;
}

/**
 * nodeSelector and workerSelector both end up in the Pod's nodeSelector. A label both set to
 * different values would leave one silently unused, so that is an error rather than a
 * precedence rule; equal values are fine.
 */
export function selectorConflicts(
  nodeSelector: Readonly<Record<string, string>> | undefined,
  workerSelector: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(nodeSelector ?? {})
    .filter(([key, value]) => workerSelector[key] !== undefined && workerSelector[key] !== value)
    .map(([key]) => key);
}

export function selectorConflictMessage(key: string, nodeValue: string, workerValue: string): string {
  return `label ${key} is "${nodeValue}" in kubernetes.nodeSelector but "${workerValue}" in workerSelector; no node has both, set it in one place`;
}
