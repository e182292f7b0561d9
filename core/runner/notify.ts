/**
 * What the operator hands the step runner's `notify` command (`kubedag-step notify`,
 * step/notify.ts) in a mail Pod: one message about a run (mailOn) or a failed step
 * (mailOnError), already composed by the operator from the run's status, and the DAG's `smtp`
 * block. `from`, `to`, `subject` and the SMTP settings keep their `${VAR}` references, which
 * the runner expands from its own environment (secrets by Secret reference), so secret values
 * never appear in the Pod spec or the run's status. Plain JSON in one environment variable.
 */
import type { SmtpSettings } from './spec.ts';

/** The environment variable that carries a NotifySpec as JSON. */
export const NOTIFY_ENV = 'KUBEDAG_NOTIFY';

/** Where the operator mounts the step logs a mail attaches (attachLogs), one file per step. */
export const NOTIFY_LOGS_DIR = '/var/run/kubedag/mail-logs';

export interface NotifySpec {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  /** An HTML document: the run and its steps. */
  readonly html: string;
  /** Absolute paths of files to attach (under NOTIFY_LOGS_DIR). */
  readonly attachments: readonly string[];
  readonly smtp?: SmtpSettings;
}
