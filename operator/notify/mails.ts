/**
 * Which mails a run owes, as Dagu's reporter decides them: after the run, `errorMail` when it
 * failed and `mailOn.failure` is set, `infoMail` when it succeeded (fully or partially) and
 * `mailOn.success` is set; and, while it runs, `errorMail` for every step with `mailOnError`
 * that failed after its retries. The subject is `<prefix> <DAG name> (<run status>)`, the run
 * status being what it was when the mail was decided (a step's mail says `running`). Canceled
 * runs send nothing, as in Dagu. And, Dagu 2.x's, `waitMail` each time the run starts waiting for
 * an approval when `mailOn.wait` is set (`wait:<N>` for its Nth wait, status.waits), subject
 * `<prefix> <DAG name> (waiting)` whatever the run does by the time its Pod is made. Pure.
 */
import type { Dag, MailConfig } from '../../core/dag/index.ts';
import { RunStatus, StepStatus, runStatusLabel } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

/** `run` for the mail after the run; `step:<name>` for a step's mailOnError; `wait:<N>` for the Nth wait's. */
export type MailKey = 'run' | `step:${string}` | `wait:${number}`;

export interface OwedMail {
  readonly key: MailKey;
  readonly config: MailConfig;
  readonly subject: string;
  /** When the mail became owed: the step's end for its mailOnError, the run's end for mailOn. */
  readonly owedSince?: string;
}

export function subjectOf(config: MailConfig, dagName: string, statusLabel: string): string {
  return `${config.prefix ?? ''} ${dagName} (${statusLabel})`.trim();
}

/** A step that failed for good and asked for mail. */
function stepMails(dag: Dag, run: DagRunResource, errorMail: MailConfig, label: string): OwedMail[] {
  const asking = new Set(dag.steps.filter((s) => s.mailOnError).map((s) => s.name));
  return (run.status?.nodes ?? [])
    .filter((node) => node.status === StepStatus.Failed && asking.has(node.name))
    .map((node) => ({
      key: `step:${node.name}` as const,
      config: errorMail,
      subject: subjectOf(errorMail, dag.name, label),
      ...(node.finishedAt === undefined ? {} : { owedSince: node.finishedAt }),
    }));
}

/** The mail after the run, if its end asks for one. */
function runMail(dag: Dag, run: DagRunResource, label: string): OwedMail | undefined {
  const status = run.status ?? {};
  if (status.finishedAt === undefined) return undefined;
  const succeeded = status.status === RunStatus.Succeeded || status.status === RunStatus.PartiallySucceeded;
  const config =
    status.status === RunStatus.Failed && dag.mailOn.failure
      ? dag.errorMail
      : succeeded && dag.mailOn.success
        ? dag.infoMail
        : undefined;
  return config === undefined
    ? undefined
    : { key: 'run', config, subject: subjectOf(config, dag.name, label), owedSince: status.finishedAt };
}

/**
 * One mail per wait the run has begun: every one stays owed until the run has ended, when each
 * is recorded (a running run's status is the run controller's to write); the Pod of one already
 * sent keeps its name from being sent again meanwhile.
 */
function waitMails(dag: Dag, run: DagRunResource): OwedMail[] {
  const config = dag.waitMail;
  if (!dag.mailOn.wait || config === undefined) return [];
  const waits = run.status?.waits ?? 0;
  const subject = subjectOf(config, dag.name, runStatusLabel(RunStatus.Waiting));
  return Array.from({ length: waits }, (_, i) => ({ key: `wait:${i + 1}` as const, config, subject }));
}

export function owedMails(dag: Dag, run: DagRunResource): OwedMail[] {
  const label = run.status?.statusLabel ?? 'running';
  const after = runMail(dag, run, label);
  return [
    ...(dag.errorMail === undefined ? [] : stepMails(dag, run, dag.errorMail, label)),
    ...waitMails(dag, run),
    ...(after === undefined ? [] : [after]),
  ];
}
