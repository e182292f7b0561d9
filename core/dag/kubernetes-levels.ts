/**
 * The kubernetes settings of a DAG and of each of its steps. The DAG level gives defaults for
 * every step Pod (handlers included) and the run's workspace; a step adds its own settings,
 * written as its `kubernetes:` block or, as Dagu 2.x and 1.x write them, as the settings of a
 * `kubernetes` (`k8s`) executor. Such a step runs its command like a shell step does; its
 * executor stays `kubernetes` (with no settings left in it) so listings show what was written.
 */
import { childPath, issue, nestIssues, type DagIssue, type Diagnostics } from './issues.ts';
import { kubernetesFromFile, workspaceFromFile } from './kubernetes.ts';
import { mergeKubernetes } from './kubernetes-merge.ts';
import type { DagKubernetesSettings, KubernetesSettings } from './kubernetes-model.ts';
import { ruleProblems, selectorConflictMessage, selectorConflicts } from './kubernetes-rules.ts';
import { stepKubernetesSchema, type KubernetesFile } from './kubernetes-schema.ts';
import type { Executor, Step } from './model.ts';
import type { DagFile } from './schema.ts';
import { shapeChecker } from './structure.ts';

const PATH = 'kubernetes';

export function dagKubernetes(
  file: DagFile,
  workerSelector: Readonly<Record<string, string>>,
  diagnostics: Diagnostics,
): DagKubernetesSettings | undefined {
  const input = file.kubernetes;
  if (input === undefined) return undefined;
  const { errors } = diagnostics;
  const settings = kubernetesFromFile(input, PATH, errors);
  const workspace = workspaceFromFile(input.workspace, childPath(PATH, 'workspace'), diagnostics);
  errors.push(...ruleProblems(settings, PATH), ...overlapProblems(file, settings));
  for (const key of selectorConflicts(settings.nodeSelector, workerSelector)) {
    errors.push(
      issue(
        childPath(childPath(PATH, 'nodeSelector'), key),
        selectorConflictMessage(key, settings.nodeSelector?.[key] ?? '', workerSelector[key] ?? ''),
      ),
    );
  }
  return workspace === undefined ? settings : { ...settings, workspace };
}

/**
 * Two keys of one level that set the same thing would leave one of them unused. The DAG's
 * workingDir is every step's directory; the container block and the DAG's Pod settings both
 * shape the run's container Pod (pull policy, user). `kubernetes.image` and `container.image`
 * do not meet: one is for step Pods of their own, the other the container's.
 */
function overlapProblems(file: DagFile, settings: KubernetesSettings): DagIssue[] {
  const container = file.container ?? {};
  const runAs = settings.securityContext?.runAsUser !== undefined || settings.securityContext?.runAsGroup !== undefined;
  const forContainer = "sets this for the run's container already";
  const overlaps: [boolean, string, string][] = [
    [
      settings.imagePullPolicy !== undefined && container.pullPolicy !== undefined,
      'imagePullPolicy',
      `container.pullPolicy ${forContainer}`,
    ],
    [
      settings.workingDir !== undefined && file.workingDir !== undefined,
      'workingDir',
      'workingDir sets this for every step already',
    ],
    [runAs && container.user !== undefined, 'securityContext', `container.user ${forContainer}`],
  ];
  return overlaps
    .filter(([both]) => both)
    .map(([, key, why]) => issue(childPath(PATH, key), `${why}; use one of them`));
}

export interface StepKubernetesContext {
  readonly kubernetes?: DagKubernetesSettings;
  readonly workerSelector?: Readonly<Record<string, string>>;
}

/** What a step wrote about its Pod, and where. */
export interface StepKubernetesInput {
  /** The step's `kubernetes:` block. */
  readonly written: KubernetesFile | undefined;
  /** Its executor's settings (moved out when the executor is kubernetes). */
  readonly config: Readonly<Record<string, unknown>>;
  readonly configPath: string;
  /** The step's own path. */
  readonly path: string;
}

const checkSettingsShape = shapeChecker(
  () => JSON.parse(JSON.stringify(stepKubernetesSchema)) as Record<string, unknown>,
);

/**
 * A step with call has no Pod of its own: what would shape one is refused rather than dropped.
 * Dagu sends such a call to a worker that matches its selector; here the called run's Pods would
 * need it, and a run does not carry one from its caller.
 */
function callStepProblems(step: Step, hasKubernetes: boolean, path: string): DagIssue[] {
  const pod = 'a step with call runs its DAG as a run of its own, without a Pod here';
  return [
    ...(hasKubernetes ? [issue(childPath(path, PATH), `${pod}; set kubernetes in the called DAG`)] : []),
    ...(Object.keys(step.workerSelector).length > 0
      ? [issue(childPath(path, 'workerSelector'), `${pod}; set the selector in the called DAG`)]
      : []),
  ];
}

/** The step with its effective kubernetes settings, and a kubernetes executor's settings moved there. */
export function withKubernetes(
  step: Step,
  input: StepKubernetesInput,
  context: StepKubernetesContext,
  diagnostics: Diagnostics,
): Step {
  const { errors } = diagnostics;
  const { written, path } = input;
  const from = { config: input.config, path: input.configPath };
  const isKubernetes = step.executor.type === 'kubernetes';
  const executor: Executor = isKubernetes ? { type: 'kubernetes', config: {} } : step.executor;
  const fromExecutor = isKubernetes && Object.keys(from.config).length > 0;
  if (written !== undefined && fromExecutor)
    errors.push(issue(from.path, "the step's kubernetes block says the same; use one of them"));
  if (step.call !== undefined) {
    errors.push(...callStepProblems(step, written !== undefined, path));
    return { ...step, executor };
  }
  const ownPath = fromExecutor && written === undefined ? from.path : childPath(path, PATH);
  const ownInput = written ?? (fromExecutor ? executorSettings(from, errors) : undefined);
  const own = ownInput === undefined ? undefined : ownSettings(ownInput, ownPath, errors);
  const kubernetes = mergeKubernetes(context.kubernetes, own);
  if (own !== undefined)
    errors.push(...ruleProblems(kubernetes, ownPath, own), ...stepOverlapProblems(step, own, ownPath));
  errors.push(
    ...stepSelectorProblems(step, kubernetes, own, { ownPath, path, dagWorkers: context.workerSelector ?? {} }),
  );
  return kubernetes === undefined ? { ...step, executor } : { ...step, executor, kubernetes };
}

/** A kubernetes executor's `with:`/`config:` get the same shape check as a `kubernetes:` block. */
function executorSettings(
  from: { readonly config: Readonly<Record<string, unknown>>; readonly path: string },
  errors: DagIssue[],
): KubernetesFile | undefined {
  const shape = checkSettingsShape(from.config);
  errors.push(...nestIssues(from.path, shape.errors));
  return shape.errors.length === 0 ? (shape.value as KubernetesFile) : undefined;
}

function ownSettings(input: KubernetesFile, path: string, errors: DagIssue[]): KubernetesSettings {
  if (input.workspace !== undefined)
    errors.push(
      issue(
        childPath(path, 'workspace'),
        'the workspace belongs to the whole run; set it in the DAG-level kubernetes block',
      ),
    );
  return kubernetesFromFile(input, path, errors);
}

/** The step's own keys that set what its kubernetes settings set too. */
function stepOverlapProblems(step: Step, own: KubernetesSettings, ownPath: string): DagIssue[] {
  const dockerImage = step.executor.type === 'docker' && step.executor.config.image !== undefined;
  return [
    ...(own.image !== undefined && dockerImage
      ? [
          issue(
            childPath(ownPath, 'image'),
            "the docker executor's image sets this step's image already; use one of them",
          ),
        ]
      : []),
    ...(own.workingDir !== undefined && step.dir !== undefined
      ? [issue(childPath(ownPath, 'workingDir'), "the step's workingDir (or dir) sets this already; use one of them")]
      : []),
  ];
}

interface SelectorPaths {
  readonly ownPath: string;
  readonly path: string;
  readonly dagWorkers: Readonly<Record<string, string>>;
}

/** Conflicts the step takes part in; those between the two DAG-level keys are reported there. */
function stepSelectorProblems(
  step: Step,
  effective: KubernetesSettings | undefined,
  own: KubernetesSettings | undefined,
  paths: SelectorPaths,
): DagIssue[] {
  const workers = { ...paths.dagWorkers, ...step.workerSelector };
  return selectorConflicts(effective?.nodeSelector, workers).flatMap((key) => {
    const message = selectorConflictMessage(key, effective?.nodeSelector?.[key] ?? '', workers[key] ?? '');
    if (own?.nodeSelector?.[key] !== undefined)
      return [issue(childPath(childPath(paths.ownPath, 'nodeSelector'), key), message)];
    if (step.workerSelector[key] !== undefined)
      return [issue(childPath(childPath(paths.path, 'workerSelector'), key), message)];
    return [];
  });
}
