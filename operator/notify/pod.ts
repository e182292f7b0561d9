/**
 * The objects of one mail: a Pod running `kubedag-step notify` from the step runner's image,
 * with the composed message in $KUBEDAG_NOTIFY, and, with attachLogs, a Secret holding the
 * steps' stdout logs (already masked by the archiver) mounted at NOTIFY_LOGS_DIR. Both are
 * owned by the run and named from the run, the mail and the retry, so that a second create
 * finds the first. Sending is the Pod's, never the operator's. Pure.
 */
import type { V1EnvVar, V1Pod, V1Secret } from '@kubernetes/client-node';
import type { Dag, EnvVar } from '../../core/dag/index.ts';
import { LABELS } from '../../core/resources/constants.ts';
import { labelValue, runSecretName, stepPodName } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { NOTIFY_ENV, NOTIFY_LOGS_DIR, type NotifySpec } from '../../core/runner/notify.ts';
import type { StepDefaults } from '../config.ts';
import { NOTIFY_LABEL } from '../run/pods/pod-kinds.ts';
import { ownerReference, runRef } from '../run/ref.ts';
import { securityContexts } from '../run/pods/security.ts';
import type { TelemetryRunner } from '../telemetry/pod.ts';
import { mailBody } from './body.ts';
import type { MailKey, OwedMail } from './mails.ts';

export const NOTIFY_COMMAND: readonly string[] = ['kubedag-step', 'notify'];

/** Each log attached is its last 128 KiB, all together at most 512 KiB (a Secret holds 1 MiB). */
export const LOG_LIMIT = 128 * 1024;
export const LOGS_LIMIT = 512 * 1024;

/** The retry the run is in: '' before any retry. Its mails are recorded under it. */
export function notifyToken(run: DagRunResource): string {
  return run.status?.retryToken ?? '';
}

/** The mail's Pod, and its logs Secret, by the same name. */
export function notifyPodName(run: DagRunResource, key: MailKey): string {
  const token = notifyToken(run);
  return stepPodName(run.metadata?.name ?? '', `mail-${key}${token === '' ? '' : `-${token}`}`, 0);
}

/** One step log to attach: where it is in the log store, and its file name in the mail. */
export interface AttachedLog {
  readonly step: string;
  readonly attempt: number;
  readonly file: string;
}

/** The stdout of every step that ran a Pod, one file each, named after the step. */
export function attachedLogs(run: DagRunResource): AttachedLog[] {
  const used = new Set<string>();
  return (run.status?.nodes ?? []).flatMap((node, index) => {
    if (node.pod === undefined) return [];
    const base = node.name
      .replace(/[^-._a-zA-Z0-9]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 200);
    const file = used.has(`${base}.out`) ? `${base}-${String(index + 1)}.out` : `${base}.out`;
    used.add(file);
    return [{ step: node.name, attempt: node.attempt ?? 0, file }];
  });
}

/** What a mail attaches in place of a log that was not in the store when it was sent. */
export function missingLogNote(log: AttachedLog): string {
  return `[kubedag: the log of step ${log.step} (attempt ${String(log.attempt)}) was not in the log store when this mail was sent; its Pod may have ended before its log was archived]\n`;
}

/** Keeps each log's end within LOG_LIMIT bytes and all within LOGS_LIMIT, saying what was cut. */
export function boundedLogs(logs: readonly { readonly file: string; readonly text: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  let left = LOGS_LIMIT;
  for (const { file, text } of logs) {
    const bytes = Buffer.from(text);
    const keep = Math.max(0, Math.min(LOG_LIMIT, left, bytes.length));
    out[file] =
      keep === bytes.length
        ? text
        : `[kubedag: the first ${String(bytes.length - keep)} bytes are left out]\n${bytes.subarray(bytes.length - keep).toString()}`;
    left -= keep;
  }
  return out;
}

export function logsSecret(run: DagRunResource, key: MailKey, files: Readonly<Record<string, string>>): V1Secret {
  const ref = runRef(run);
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: notifyPodName(run, key),
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name), [NOTIFY_LABEL]: 'true' },
      ownerReferences: [ownerReference(ref)],
    },
    type: 'Opaque',
    immutable: true,
    stringData: { ...files },
  };
}

export interface NotifyPodRequest {
  readonly run: DagRunResource;
  readonly dag: Dag;
  /** The run's evaluated DAG env and params, as its steps see them. */
  readonly env?: readonly EnvVar[];
  readonly mail: OwedMail;
  readonly runner: TelemetryRunner;
  readonly steps: Pick<StepDefaults, 'security' | 'user'>;
  /** Steps whose logs the mail attaches but could not get: the body names them. */
  readonly missingSteps?: readonly string[];
}

export function notifyPod(request: NotifyPodRequest): V1Pod {
  const { run, dag, mail, runner } = request;
  const ref = runRef(run);
  const name = notifyPodName(run, mail.key);
  const logs = mail.config.attachLogs ? attachedLogs(run) : [];
  const spec: NotifySpec = {
    from: mail.config.from ?? '',
    to: mail.config.to,
    subject: mail.subject,
    html: mailBody(dag, run, request.missingSteps ?? []),
    attachments: logs.map((log) => `${NOTIFY_LOGS_DIR}/${log.file}`),
    ...(dag.smtp === undefined ? {} : { smtp: dag.smtp }),
  };
  // `${VAR}` in the addresses, subject and SMTP settings expands from these: the run's DAG env
  // and params (as its steps see them), its identity, and its secrets by reference.
  const env: V1EnvVar[] = [
    ...(request.env ?? []).map((v) => ({ name: v.name, value: v.value })),
    { name: NOTIFY_ENV, value: JSON.stringify(spec) },
    { name: 'DAG_NAME', value: ref.dagName },
    { name: 'DAG_RUN_ID', value: ref.dagRunId },
    ...dag.secrets.map((s) => ({
      name: s.name,
      valueFrom: { secretKeyRef: { name: runSecretName(ref.name), key: s.name } },
    })),
  ];
  const security = securityContexts(request.steps, undefined, undefined);
  const attach = logs.length > 0;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name), [LABELS.dag]: labelValue(ref.dagName), [NOTIFY_LABEL]: 'true' },
      ownerReferences: [ownerReference(ref)],
    },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      ...(security.pod === undefined ? {} : { securityContext: security.pod }),
      ...(attach ? { volumes: [{ name: 'logs', secret: { secretName: name } }] } : {}),
      containers: [
        {
          name: 'notify',
          image: runner.image,
          command: [...runner.command],
          env,
          ...(attach ? { volumeMounts: [{ name: 'logs', mountPath: NOTIFY_LOGS_DIR, readOnly: true }] } : {}),
          ...(security.container === undefined ? {} : { securityContext: security.container }),
        },
      ],
    },
  };
}
