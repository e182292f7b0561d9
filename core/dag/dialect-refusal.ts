/**
 * How a 2.x feature Kubedag does not read is refused: by name, at the key that asks for it,
 * never accepted and ignored, and always with the reason and what to write instead: from
 * DELIBERATE for a feature named by a fixed string, or as refusal()'s `why` for one named with
 * what the file wrote. The types make a refusal without a reason impossible to write; the list
 * is written down in docs/decisions/2026-11-29-dagu-2x-actions-values.md.
 */
import { NARROW } from './dialect-refusal-narrow.ts';
import { issue, type DagIssue } from './issues.ts';

/** Dagu takes `inputs` and `path` outputs only in a `type: build` DAG (validateBuildStep). */
const BUILD_PATHS = 'it is a build path, which only build DAGs (type: build) take, and Kubedag runs no build DAGs';
/** Dagu's sub-DAG step prints the child run's status as JSON; Kubedag's prints nothing. */
const SUB_DAG_STREAMS =
  "a sub-DAG step has no stdout or stderr in Kubedag (its work is the child run); write the artifact from the child DAG's steps";
/** Why host paths are refused: pod policy, and where Kubernetes volumes are written instead. */
const HOST_PATHS =
  "a step Pod gets volumes from its kubernetes block, not Docker bind mounts; write volumes and volumeMounts there (a hostPath volume only where the namespace's pod policy allows one), or use the run's workspace";

/** Feature name (as refusal() is given it) -> why Kubedag does not run it. */
export const DELIBERATE = {
  'llm (LLM settings)': 'Kubedag runs no LLM steps',
  'llm (LLM steps)': 'Kubedag runs no LLM steps',
  'messages (LLM chat steps)': 'Kubedag runs no LLM steps',
  'action chat.completion (LLM chat)': 'Kubedag runs no LLM steps',
  'type: agent (agent DAGs)': 'Kubedag runs no LLM agents',
  'tasks (agent tasks)': 'Kubedag runs no LLM agents',
  tools: 'Kubedag runs no LLM agents',
  harness: 'Kubedag runs no coding-agent harnesses',
  harnesses: 'Kubedag runs no coding-agent harnesses',
  'action harness.run (coding-agent harness)': 'Kubedag runs no coding-agent harnesses',
  'action git.worktree.add (git worktrees)': "steps share the run's workspace volume, not git worktrees on one host",
  'action git.worktree.remove (git worktrees)': "steps share the run's workspace volume, not git worktrees on one host",
  'action human.task (human tasks)': 'of the human tasks only approval waits are planned',
  'actions (custom action packages)': 'Kubedag runs only its built-in executors',
  'step_types (custom step types)': 'Kubedag runs only its built-in executors',
  'custom action packages (a versioned action reference)': 'Kubedag runs only its built-in executors',
  'type: controller (controller DAGs)': "Kubedag runs no LLM agents (controller is Dagu's older name of agent)",
  'type: build (build DAGs)': 'Kubedag runs no build DAGs',
  'type: chat (LLM chat steps)': 'Kubedag runs no LLM steps',
  'type: agent (agent steps)': 'Kubedag runs no LLM agents',
  'type: harness (coding-agent harness)': 'Kubedag runs no coding-agent harnesses',
  'inputs (build inputs)': BUILD_PATHS,
  'outputs path (an output published as a file)': `${BUILD_PATHS}; publish a value (type: string) or write the file as a run artifact`,
  'dependencies (files beside the DAG)':
    "a DAG in Kubernetes has no directory of files beside it; put the files in the step's image or a volume it mounts, or fetch them in the step",
  'stdout.artifact on a sub-DAG step': SUB_DAG_STREAMS,
  'stderr.artifact on a sub-DAG step': SUB_DAG_STREAMS,
  'output_schema on a sub-DAG step':
    "a sub-DAG step has no stdout in Kubedag (its work is the child run); check the child DAG's steps' output instead",
  'log_output: merged':
    "Kubedag keeps a step's stdout and stderr apart in its log store; merge them in the command (2>&1) instead",
  'docker with.volumes (bind mounts of the host)': HOST_PATHS,
  'step container.volumes (bind mounts of the host)': HOST_PATHS,
  'container.exec (an existing container)':
    "the run's container is a Pod Kubedag starts; to run steps in a running Pod, name it on each step (container: <pod>)",
  'container.healthcheck':
    'Kubernetes runs no Docker health checks; wait for the container with log_pattern (a line it logs once ready)',
  'step container.healthcheck':
    "a step Pod's command starts with its container and nothing waits for health; check readiness in the command",
  "container.shell (a shell around exec'd commands)":
    "commands in the run's container are exec'd as written, without a shell; write bash -c '...' or a script",
  'step container.shell with exec':
    "an exec'd command runs as written, without a shell; write bash -c '...' or a script",
  'docker with.shell with exec': "an exec'd command runs as written, without a shell; write bash -c '...' or a script",
  // The data stores and clients Dagu runs in its own process: each step Pod runs an image, so
  // the client goes in a container step, where its version and credentials are the user's.
  'postgres.* actions':
    'Kubedag runs no database client in its step runner; run psql in a container step (type: docker with image postgres) and pass the password from a Secret',
  'sqlite.* actions':
    "Kubedag runs no database client in its step runner, and a step Pod sees no file of Dagu's host; run sqlite3 in a container step on a file in the run's workspace",
  'redis.* actions':
    'Kubedag runs no Redis client in its step runner; run redis-cli in a container step (type: docker with image redis)',
  redis:
    'the DAG-level redis block configures the redis.* actions, which Kubedag does not run (run redis-cli in a container step)',
  'sftp.* actions':
    'Kubedag runs no SFTP client in its step runner; copy with sftp or scp in a container step that has an SSH client, or move files through object storage with the s3.* actions',
  'state.* actions':
    "Kubedag keeps no key-value store between runs (Dagu's state store is files on its host); keep such values in a ConfigMap (type: kubernetes step) or an object store (s3.* actions)",
  'data.* actions':
    'Kubedag does not convert data formats in its step runner; use jq.filter for JSON, or yq, mlr or csvkit in a container step',
  'git actions':
    "Kubedag runs no git client in its step runner; clone in a container step (type: docker with image alpine/git) into the run's workspace",
  webhook:
    'Kubedag serves no DAG webhooks (/api/v1/webhooks is not served), so there are no webhook headers to forward; start runs through the API with params',
  ...NARROW,
} as const satisfies Readonly<Record<string, string>>;

/** A feature whose reason DELIBERATE holds: the only features refusal() takes without a `why`. */
export type DeliberateFeature = keyof typeof DELIBERATE;

/**
 * The error for a 2.x feature at `path`, with why Kubedag does not run it: DELIBERATE's reason,
 * or `why` for a feature named with what the file wrote.
 */
export function refusal(path: string, feature: DeliberateFeature): DagIssue;
export function refusal(path: string, feature: string, why: string): DagIssue;
export function refusal(path: string, feature: string, why?: string): DagIssue {
  const reason = why ?? (DELIBERATE as Readonly<Record<string, string>>)[feature];
  // The overloads leave no way here without a reason; a cast around them is a bug to show.
  if (reason === undefined) throw new Error(`refusal of ${feature} has no reason`);
  return issue(path, `Dagu 2.x feature ${feature} is not supported: ${reason}`);
}

/** Whether an error is a refusal of a 2.x feature. */
export function isRefusal(error: DagIssue): boolean {
  return /^Dagu 2\.x feature .* is not supported: /.test(error.message);
}
