/**
 * How a 2.x feature Kubedag does not read is refused: by name, at the key that asks for it,
 * never accepted and ignored. Two kinds: features a later slice of issue 26 reads ("not
 * supported yet"), and the features Kubedag deliberately does not run (DELIBERATE, with why);
 * the list is written down in docs/decisions/2026-11-29-dagu-2x-actions-values.md.
 */
import { issue, type DagIssue } from './issues.ts';

/** Feature name (as refusal() is given it) -> why Kubedag does not run it. */
export const DELIBERATE: Readonly<Record<string, string>> = {
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
};

/**
 * The error for a 2.x feature at `path`: deliberately not run (the reason from DELIBERATE, or
 * `why` for a feature named with what the file wrote), or not read yet.
 */
export function refusal(path: string, feature: string, why: string | undefined = DELIBERATE[feature]): DagIssue {
  return issue(
    path,
    why === undefined
      ? `Dagu 2.x feature ${feature} is not supported yet`
      : `Dagu 2.x feature ${feature} is not supported: ${why}`,
  );
}

/** Whether an error is a refusal of a 2.x feature (of either kind). */
export function isRefusal(error: DagIssue): boolean {
  return /^Dagu 2\.x feature .* is not supported(?: yet$|: )/.test(error.message);
}
