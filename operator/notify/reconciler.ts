/**
 * Sends the mails a run owes (mails.ts) once each, level-triggered, from Pods. From the run's
 * status and the mail Pods as the cache shows them, `decideNotify` (pure) says, per mail,
 * whether to create its Pod (with its logs Secret first, when it attaches logs and every log is
 * in the store), record how it ended, or remove it once recorded. A step's mail goes out while
 * the run is still running, but its result is recorded only once the run has finished, so the
 * run controller stays the only writer of a running run's status; until then the Pod stays
 * (its derived name keeps a second one from starting). The operator can die between any two
 * writes: a second create finds the first, and a recorded mail is never sent again. A retry in
 * place is a new execution with mails of its own.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { podFailure, removal } from '../run/after-run-pod.ts';
import type { Dag, EnvVar } from '../../core/dag/index.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { Clock } from '../../core/kube/time.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { StepDefaults } from '../config.ts';
import { logRefOf, type LogStore } from '../logs/store.ts';
import { loadDefinition } from '../run/definition-cache.ts';
import type { RunDefinition } from '../run/definition.ts';
import type { PodWriter } from '../run/pod-writer.ts';
import { runRef } from '../run/ref.ts';
import type { RunWriter } from '../run/writer.ts';
import type { TelemetryRunner } from '../telemetry/pod.ts';
import { owedMails, type MailKey, type OwedMail } from './mails.ts';
import { attachedLogs, boundedLogs, logsSecret, notifyPod, notifyPodName, notifyToken, type AttachedLog } from './pod.ts';

type Notification = NonNullable<DagRunStatus['notifications']>[number];

export type NotifyAction =
  | { readonly kind: 'none' }
  | { readonly kind: 'create'; readonly pod: V1Pod; readonly logs: readonly AttachedLog[] }
  | { readonly kind: 'record'; readonly notification: Omit<Notification, 'finishedAt'> }
  | { readonly kind: 'delete'; readonly pod: string };

export interface NotifyInput {
  readonly run: DagRunResource;
  readonly dag: Dag;
  readonly env?: readonly EnvVar[];
  readonly mail: OwedMail;
  /** The mail's Pod for the current execution, as the cache shows it. */
  readonly pod: V1Pod | undefined;
  /** Every log the mail would attach is in the store (true when it attaches none). */
  readonly logsArchived: boolean;
  readonly runner: TelemetryRunner;
  readonly steps: Pick<StepDefaults, 'security' | 'user'>;
}

export function recorded(run: DagRunResource, key: MailKey): boolean {
  return (run.status?.notifications ?? []).some((n) => n.key === key && n.token === notifyToken(run));
}

/** What to do about one mail a run owes next. Pure. */
export function decideNotify(input: NotifyInput): NotifyAction {
  const { run, mail, pod } = input;
  if (recorded(run, mail.key)) return removal(pod);
  if (pod === undefined) {
    if (!input.logsArchived) return { kind: 'none' };
    return { kind: 'create', pod: notifyPod(input), logs: mail.config.attachLogs ? attachedLogs(run) : [] };
  }
  // A running run's status is the run controller's to write: results wait for the end.
  if (run.status?.finishedAt === undefined) return { kind: 'none' };
  const phase = pod.status?.phase;
  const base = { key: mail.key, token: notifyToken(run) };
  if (phase === 'Succeeded') return { kind: 'record', notification: { ...base, state: 'sent' } };
  if (phase === 'Failed') return { kind: 'record', notification: { ...base, state: 'failed', message: podFailure(pod, 'mail') } };
  return { kind: 'none' };
}

export interface NotifyDeps {
  readonly pods: Informer<V1Pod>;
  readonly podWriter: PodWriter;
  readonly writer: RunWriter;
  readonly store: LogStore;
  readonly clock: Clock;
  readonly runner: TelemetryRunner;
  readonly steps: StepDefaults;
}

export class NotifyReconciler {
  private readonly deps: NotifyDeps;

  constructor(deps: NotifyDeps) {
    this.deps = deps;
  }

  /** One step towards each mail the run owes; the Pods' and the run's next changes bring the next. */
  async reconcile(run: DagRunResource, definition: RunDefinition = loadDefinition(run)): Promise<void> {
    const { deps } = this;
    const { dag, env } = definition;
    const namespace = run.metadata?.namespace ?? '';
    const records: Notification[] = [];
    for (const mail of owedMails(dag, run)) {
      const logs = mail.config.attachLogs ? attachedLogs(run) : [];
      const pod = deps.pods.get(namespace, notifyPodName(run, mail.key));
      const logsArchived = pod !== undefined || (await this.archived(run, logs));
      const action = decideNotify({ run, dag, env, mail, pod, logsArchived, runner: deps.runner, steps: deps.steps });
      if (action.kind === 'create') {
        if (action.logs.length > 0) await deps.podWriter.createSecret(namespace, logsSecret(run, mail.key, await this.read(run, action.logs)));
        await deps.podWriter.create(namespace, action.pod);
      } else if (action.kind === 'delete') {
        await deps.podWriter.delete(namespace, action.pod);
      } else if (action.kind === 'record') {
        records.push({ ...action.notification, finishedAt: deps.clock.now().toISOString() });
      }
    }
    if (records.length > 0) await deps.writer.writeStatus(run, { ...run.status, notifications: [...(run.status?.notifications ?? []), ...records] });
  }

  /** Logs are archived once their Pod ended; the archiver enqueues the run when one is. */
  private async archived(run: DagRunResource, logs: readonly AttachedLog[]): Promise<boolean> {
    const ref = runRef(run);
    for (const log of logs) if (!(await this.deps.store.exists(logRefOf(ref, log.step, log.attempt)))) return false;
    return true;
  }

  private async read(run: DagRunResource, logs: readonly AttachedLog[]): Promise<Record<string, string>> {
    const ref = runRef(run);
    const texts = await Promise.all(logs.map(async (log) => ({ file: log.file, text: (await this.deps.store.read(logRefOf(ref, log.step, log.attempt), 'stdout')) ?? '' })));
    return boundedLogs(texts);
  }
}
