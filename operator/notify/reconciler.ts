/**
 * Sends the mails a run owes (mails.ts) once each, level-triggered, from Pods. From the run's
 * status and the mail Pods as the cache shows them, `decideNotify` (pure) says, per mail,
 * whether to create its Pod (with its logs Secret first, when it attaches logs and every log is
 * in the store, or the wait for them is over), record how it ended, or remove it once recorded. A step's mail goes out while
 * the run is still running, but its result is recorded only once the run has finished, so the
 * run controller stays the only writer of a running run's status; until then the Pod stays
 * (its derived name keeps a second one from starting). The operator can die between any two
 * writes: a second create finds the first, and a recorded mail is never sent again. A retry in
 * place is a new execution with mails of its own.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { podFailure, removal } from '../run/pods/helper-pod.ts';
import type { Dag, EnvVar } from '../../core/dag/index.ts';
import type { Informer } from '../../core/kube/informer.ts';
import type { Clock } from '../../core/kube/time.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { StepDefaults } from '../config.ts';
import { logRefOf } from '../logs/keys.ts';
import type { LogStore } from '../logs/store.ts';
import type { RunDefinition } from '../run/decide/run-definition.ts';
import type { PodWriter } from '../run/shared/pod-writer.ts';
import { runRef } from '../run/ref.ts';
import type { RunWriter } from '../run/shared/status-writer.ts';
import type { TelemetryRunner } from '../telemetry/pod.ts';
import { owedMails, type MailKey, type OwedMail } from './mails.ts';
import {
  attachedLogs,
  boundedLogs,
  logsSecret,
  missingLogNote,
  notifyPod,
  notifyPodName,
  notifyToken,
  type AttachedLog,
} from './pod.ts';

/**
 * How long a mail that attaches logs waits for them after it became owed (the run's or the
 * step's end). The archiver stores a log seconds after its Pod ended; one still missing then
 * belongs to a Pod lost before it was read, and the mail goes without it rather than never.
 */
export const DEFAULT_LOG_WAIT_MS = 2 * 60_000;

type Notification = NonNullable<DagRunStatus['notifications']>[number];

export type NotifyAction =
  | { readonly kind: 'none' }
  /** Logs it attaches are not in the store yet: look again when the wait for them is over. */
  | { readonly kind: 'wait'; readonly requeueAfterMs: number }
  /** `logs` are all it attaches; the `missing` ones are named in their place. */
  | {
      readonly kind: 'create';
      readonly pod: V1Pod;
      readonly logs: readonly AttachedLog[];
      readonly missing: readonly AttachedLog[];
    }
  | { readonly kind: 'record'; readonly notification: Omit<Notification, 'finishedAt'> }
  | { readonly kind: 'delete'; readonly pod: string };

export interface NotifyInput {
  readonly run: DagRunResource;
  readonly dag: Dag;
  readonly env?: readonly EnvVar[];
  readonly mail: OwedMail;
  /** The mail's Pod for the current execution, as the cache shows it. */
  readonly pod: V1Pod | undefined;
  /** The logs the mail attaches that are not in the store (none when it attaches none). */
  readonly missingLogs: readonly AttachedLog[];
  readonly now: Date;
  /** How long after the mail became owed it waits for missing logs (DEFAULT_LOG_WAIT_MS). */
  readonly logWaitMs: number;
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
    const missing = input.missingLogs;
    // A mail with no known time it became owed does not wait: waiting without end is what this bounds.
    const due = Date.parse(mail.owedSince ?? '') + input.logWaitMs;
    if (missing.length > 0 && input.now.getTime() < due)
      return { kind: 'wait', requeueAfterMs: due - input.now.getTime() };
    return {
      kind: 'create',
      pod: notifyPod({ ...input, missingSteps: missing.map((l) => l.step) }),
      logs: mail.config.attachLogs ? attachedLogs(run) : [],
      missing,
    };
  }
  // A running run's status is the run controller's to write: results wait for the end.
  if (run.status?.finishedAt === undefined) return { kind: 'none' };
  const phase = pod.status?.phase;
  const base = { key: mail.key, token: notifyToken(run) };
  if (phase === 'Succeeded') return { kind: 'record', notification: { ...base, state: 'sent' } };
  if (phase === 'Failed')
    return { kind: 'record', notification: { ...base, state: 'failed', message: podFailure(pod, 'mail') } };
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
  /** DEFAULT_LOG_WAIT_MS unless the operator is configured otherwise. */
  readonly logWaitMs?: number;
}

export class NotifyReconciler {
  private readonly deps: NotifyDeps;

  constructor(deps: NotifyDeps) {
    this.deps = deps;
  }

  /**
   * One step towards each mail the run owes; the Pods' and the run's next changes (an archived
   * log among them) bring the next. Returns when to look again if nothing else will: the end
   * of the soonest wait for missing logs.
   */
  async reconcile(run: DagRunResource, definition: RunDefinition): Promise<number | undefined> {
    const now = this.deps.clock.now();
    const records: Notification[] = [];
    let requeueAfterMs: number | undefined;
    for (const mail of owedMails(definition.dag, run)) {
      const action = await this.decide(run, definition, mail, now);
      if (action.kind === 'wait')
        requeueAfterMs = Math.min(requeueAfterMs ?? action.requeueAfterMs, action.requeueAfterMs);
      else if (action.kind === 'record') records.push({ ...action.notification, finishedAt: now.toISOString() });
      else await this.act(run, mail.key, action);
    }
    if (records.length > 0)
      await this.deps.writer.writeStatus(run, {
        ...run.status,
        notifications: [...(run.status?.notifications ?? []), ...records],
      });
    return requeueAfterMs;
  }

  /** Gathers what one mail's decision needs (its Pod, the logs not in the store) and decides. */
  private async decide(
    run: DagRunResource,
    { dag, env }: RunDefinition,
    mail: OwedMail,
    now: Date,
  ): Promise<NotifyAction> {
    const { deps } = this;
    const pod = deps.pods.get(run.metadata?.namespace ?? '', notifyPodName(run, mail.key));
    const missingLogs = pod === undefined && mail.config.attachLogs ? await this.missing(run, attachedLogs(run)) : [];
    return decideNotify({
      run,
      dag,
      env,
      mail,
      pod,
      missingLogs,
      now,
      logWaitMs: deps.logWaitMs ?? DEFAULT_LOG_WAIT_MS,
      runner: deps.runner,
      steps: deps.steps,
    });
  }

  private async act(
    run: DagRunResource,
    key: MailKey,
    action: Extract<NotifyAction, { kind: 'create' | 'delete' | 'none' }>,
  ): Promise<void> {
    const { podWriter } = this.deps;
    const namespace = run.metadata?.namespace ?? '';
    if (action.kind === 'create') {
      if (action.logs.length > 0)
        await podWriter.createSecret(
          namespace,
          logsSecret(run, key, await this.read(run, action.logs, action.missing)),
        );
      await podWriter.create(namespace, action.pod);
    } else if (action.kind === 'delete') {
      await podWriter.delete(namespace, action.pod);
    }
  }

  /** Logs not in the store yet: logs are archived once their Pod ended, and the archiver enqueues the run when one is. */
  private async missing(run: DagRunResource, logs: readonly AttachedLog[]): Promise<AttachedLog[]> {
    const ref = runRef(run);
    const stored = await Promise.all(logs.map((log) => this.deps.store.exists(logRefOf(ref, log.step, log.attempt))));
    return logs.filter((_, i) => !stored[i]);
  }

  /** The attached files: each log as stored, and in place of a missing one the note that names it. */
  private async read(
    run: DagRunResource,
    logs: readonly AttachedLog[],
    missing: readonly AttachedLog[],
  ): Promise<Record<string, string>> {
    const ref = runRef(run);
    const absent = new Set(missing.map((l) => l.file));
    const text = async (log: AttachedLog): Promise<string> =>
      absent.has(log.file)
        ? missingLogNote(log)
        : ((await this.deps.store.read(logRefOf(ref, log.step, log.attempt), 'stdout')) ?? '');
    return boundedLogs(await Promise.all(logs.map(async (log) => ({ file: log.file, text: await text(log) }))));
  }
}
