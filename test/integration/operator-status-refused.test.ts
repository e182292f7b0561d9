/**
 * Runs whose status the Kubernetes API refuses, end to end on the local control plane. Real
 * refusals stand in for the limits a big run meets: a ValidatingAdmissionPolicy on the
 * `dagruns/status` subresource that answers 413 (as over a size limit), 422 (as an invalid
 * status) or 403 for runs labelled so, and a webhook that never answers while a run is being
 * stopped. Each run must end with the reason in its status (or, when no status at all is
 * taken, in its kubedag.io/ended annotation), a Warning Event, and no Pod left.
 */
import { randomBytes } from 'node:crypto';
import { AdmissionregistrationV1Api, type CoreV1Event } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { recordedEnd, withRecordedEnd } from '../../core/resources/ended.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../builders/dag-run.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  finishedRun,
  getRun,
  givenDag,
  runningStep,
  startOperator,
  stepStates,
  stopRun,
  type RunningOperator,
} from './operator-support.ts';

const { kc, core, kube } = clients();
const admission = kc.makeApiClient(AdmissionregistrationV1Api);
/** Cluster-scoped, so named apart from other files' policies. */
const policy = `kubedag-status-${randomBytes(3).toString('hex')}`;
const LIMIT = 'kubedag-test/limit';
const WEBHOOK = 'kubedag-test/webhook';

let ns = '';
let operator: RunningOperator;

/** One refusal of status updates, for runs whose LIMIT label has the value `kind`. */
interface Refusal {
  readonly kind: string;
  /** CEL over the new object that must hold, else the update is denied. */
  readonly allows: string;
  readonly reason: 'RequestEntityTooLarge' | 'Invalid' | 'Forbidden';
  readonly message: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    kind: 'nodes',
    allows: '!has(object.status.nodes) || size(object.status.nodes) <= 3',
    reason: 'RequestEntityTooLarge',
    message: 'a status of more than 3 steps is too large here',
  },
  {
    kind: 'detail',
    allows: '!has(object.status.nodes) || !object.status.nodes.exists(n, has(n.startedAt))',
    reason: 'Invalid',
    message: 'step details are not allowed here',
  },
  { kind: 'all', allows: 'false', reason: 'Forbidden', message: 'no status may be written here' },
];

async function givenRefusingPolicies(): Promise<void> {
  for (const refusal of REFUSALS) {
    const name = `${policy}-${refusal.kind}`;
    await admission.createValidatingAdmissionPolicy({
      body: {
        metadata: { name },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: {
            resourceRules: [
              { apiGroups: ['kubedag.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['dagruns/status'] },
            ],
          },
          matchConditions: [
            {
              name: 'labelled',
              expression: `has(object.metadata.labels) && '${LIMIT}' in object.metadata.labels && object.metadata.labels['${LIMIT}'] == '${refusal.kind}'`,
            },
          ],
          validations: [{ expression: refusal.allows, message: refusal.message, reason: refusal.reason }],
        },
      },
    });
    await admission.createValidatingAdmissionPolicyBinding({
      body: {
        metadata: { name },
        spec: {
          policyName: name,
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
        },
      },
    });
  }
  // The API server applies a new policy once its informers have it: wait until each denies a probe.
  const node = { name: 'x', status: 1, statusLabel: 'running', startedAt: new Date().toISOString() };
  const probes: Record<string, DagRunResource['status']> = {
    nodes: { nodes: [node, node, node, node] },
    detail: { nodes: [node] },
    all: { progress: '0/0' },
  };
  for (const [kind, status] of Object.entries(probes)) {
    const probe = `probe-${kind}`;
    const created = await kube.runs.create(
      ns,
      dagRun(probe)
        .namespace(ns)
        .label({ [LIMIT]: kind })
        .spec({ dagRef: { name: 'none' } })
        .build(),
    );
    await waitFor(
      `the ${kind} policy to deny status writes`,
      async () =>
        kube.runs.replaceStatus({ ...created, status }).then(
          () => false,
          () => true,
        ),
      30_000,
      200,
    );
    await kube.runs.delete(ns, probe);
  }
}

/**
 * A webhook on status updates of runs labelled WEBHOOK=down, at an address nobody answers:
 * every such write fails with a 500 that may pass later (refusal class `wait`).
 */
async function givenUnansweredWebhook(): Promise<void> {
  await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: policy },
      webhooks: [
        {
          name: `down.${policy}.kubedag.io`,
          clientConfig: { url: 'https://127.0.0.1:1/validate' },
          rules: [
            { apiGroups: ['kubedag.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['dagruns/status'] },
          ],
          objectSelector: { matchLabels: { [WEBHOOK]: 'down' } },
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 2,
        },
      ],
    },
  });
}

async function whenLabelledRun(name: string, dag: string, labels: Record<string, string>): Promise<void> {
  await kube.runs.create(
    ns,
    dagRun(name)
      .namespace(ns)
      .label(labels)
      .spec({ dagRef: { name: dag } })
      .build(),
  );
}

async function warningOf(run: string, reason: string): Promise<CoreV1Event> {
  let warning: CoreV1Event | undefined;
  await waitFor(
    `the ${reason} Event of ${run}`,
    async () => {
      const events = await core.listNamespacedEvent({ namespace: ns, fieldSelector: `involvedObject.name=${run}` });
      warning = events.items.find((e) => e.reason === reason);
      return warning !== undefined;
    },
    30_000,
    250,
  );
  return warning as CoreV1Event;
}

async function noPodsOf(run: string): Promise<void> {
  await waitFor(
    `the Pods of ${run} to go`,
    async () =>
      (await core.listNamespacedPod({ namespace: ns, labelSelector: `kubedag.io/run=${run}` })).items.length === 0,
    60_000,
    250,
  );
}

/** Waits until the run's annotation records its end, and returns the run as every Kubedag cache shows it. */
async function endedByAnnotation(name: string): Promise<DagRunResource> {
  let run: DagRunResource | undefined;
  await waitFor(
    `the end of ${name} in its annotation`,
    async () => {
      run = await getRun(ns, name);
      return run.metadata?.annotations?.[ANNOTATIONS.ended] !== undefined;
    },
    60_000,
    200,
  );
  return run as DagRunResource;
}

beforeAll(async () => {
  ns = await createNamespace(core, 'status-refused');
  await givenRefusingPolicies();
  await givenUnansweredWebhook();
  operator = await startOperator(ns);
});

afterAll(async () => {
  await operator.stop();
  for (const refusal of REFUSALS) {
    const name = `${policy}-${refusal.kind}`;
    await admission.deleteValidatingAdmissionPolicyBinding({ name }).catch(() => undefined);
    await admission.deleteValidatingAdmissionPolicy({ name }).catch(() => undefined);
  }
  await admission.deleteValidatingWebhookConfiguration({ name: policy }).catch(() => undefined);
  await deleteNamespace(core, ns);
});

describe('a run whose status the API refuses for good', () => {
  it('fails with the limit and the API message in its status and a Warning Event, keeping only its progress, and its Pods go', async () => {
    await givenDag(
      ns,
      'wide',
      'type: graph\nsteps:\n' +
        ['a', 'b', 'c', 'd', 'e'].map((s) => `  - {name: ${s}, command: sleep 60}`).join('\n') +
        '\n',
    );
    await whenLabelledRun('wide-1', 'wide', { [LIMIT]: 'nodes' });
    const run = await finishedRun(ns, 'wide-1', 30_000);
    expect([run.status?.statusLabel, run.status?.endReason, run.status?.progress, run.status?.nodes]).toEqual([
      'failed',
      'refused',
      '0/5',
      undefined,
    ]);
    expect(run.status?.error).toMatch(
      /^the Kubernetes API refused the run's status \(the size limit of an object\), so the run was ended and its steps stopped: .*a status of more than 3 steps is too large here \(only the progress was kept; step statuses were left out to fit\)$/,
    );
    const warning = await warningOf('wide-1', 'StatusRefused');
    expect([warning.type, warning.message]).toEqual([
      'Warning',
      expect.stringContaining('a status of more than 3 steps is too large here') as unknown,
    ]);
    await noPodsOf('wide-1');
  });

  it("keeps each started step's name and status when only their detail is refused", async () => {
    await givenDag(ns, 'chain', 'steps:\n  - {name: a, command: sleep 60}\n  - {name: b, command: echo after}\n');
    await whenLabelledRun('chain-1', 'chain', { [LIMIT]: 'detail' });
    const run = await finishedRun(ns, 'chain-1', 30_000);
    expect([run.status?.statusLabel, run.status?.endReason, stepStates(run)]).toEqual([
      'failed',
      'refused',
      { a: 'canceled' },
    ]);
    expect(run.status?.error).toMatch(
      /\(validation \(422 Invalid\)\), so the run was ended and its steps stopped: .*step details are not allowed here \(step details were left out to fit\)$/,
    );
    await warningOf('chain-1', 'StatusRefused');
    await noPodsOf('chain-1');
  });

  it('records the end in its annotation when no status at all is taken', async () => {
    await givenDag(ns, 'mute', 'steps:\n  - {name: a, command: sleep 60}\n');
    await whenLabelledRun('mute-1', 'mute', { [LIMIT]: 'all' });
    const run = await endedByAnnotation('mute-1');
    expect(recordedEnd(run)).toMatchObject({
      status: 2,
      endReason: 'refused',
      error: expect.stringContaining('no status may be written here') as unknown,
    });
    expect(withRecordedEnd(run).status?.statusLabel).toBe('failed');
    await warningOf('mute-1', 'StatusRefused');
    await noPodsOf('mute-1');
  });
});

describe('a stop of a run whose status cannot be written', () => {
  it('ends the run canceled all the same, and its Pod goes', async () => {
    await givenDag(ns, 'stuck', 'steps:\n  - {name: a, command: sleep 300}\n');
    await whenLabelledRun('stuck-1', 'stuck', {});
    await runningStep(ns, 'stuck-1', 'a');
    // From now on every status write of the run fails, as when etcd or a webhook is down.
    await kube.runs.mergePatch(ns, 'stuck-1', { metadata: { labels: { [WEBHOOK]: 'down' } } });
    await stopRun(ns, 'stuck-1');
    const run = await endedByAnnotation('stuck-1');
    expect([
      run.status?.statusLabel,
      withRecordedEnd(run).status?.statusLabel,
      withRecordedEnd(run).status?.endReason,
    ]).toEqual(['running', 'canceled', 'stopped']);
    expect(recordedEnd(run)?.error).toMatch(
      /^stopped; the run's full status could not be written \(an error of the API server \(500\)\): .*webhook/,
    );
    await warningOf('stuck-1', 'StopWithoutStatus');
    await noPodsOf('stuck-1');
  });
});
