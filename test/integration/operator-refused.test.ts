/**
 * Step Pods the Kubernetes API refuses at creation, end to end on the local control plane: a
 * ValidatingAdmissionPolicy or PodSecurity `enforce` that denies them fails the step with the API's message (and
 * continueOn lets the run go on), as does one denying a sub-DAG's child run, while a
 * ResourceQuota that is full keeps the run waiting,
 * says why in a Warning Event, and lets it finish once the quota is raised.
 */
import { randomBytes } from 'node:crypto';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiErrorMessage, statusCode } from '../../core/kube/errors.ts';
import { pod } from '../builders/pod.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import {
  finishedRun,
  getRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  warningOf,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { kc, core } = clients();
const admission = kc.makeApiClient(AdmissionregistrationV1Api);
/** Cluster-scoped, so named apart from other files' policies. */
const policy = `kubedag-refuse-${randomBytes(3).toString('hex')}`;
const DENIAL = 'step Pods labelled refuse-me are not allowed here';
const CHILD_DENIAL = 'runs of forbidden-child may not be started by other runs';

let deniedNs = '';
/** A namespace that enforces the restricted Pod Security Standard. */
let restrictedNs = '';
/** A namespace whose quota allows no Pods, until a test raises it. */
let quotaNs = '';
let operator: RunningOperator;

/** Denies, in one namespace, every Pod labelled `refuse-me`. */
async function givenDenyingPolicy(namespace: string): Promise<void> {
  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        // Forbidden (403), as PodSecurity answers; without a reason a policy answers Invalid (422).
        validations: [
          {
            expression: "!has(object.metadata.labels) || !('refuse-me' in object.metadata.labels)",
            message: DENIAL,
            reason: 'Forbidden',
          },
        ],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name: policy },
      spec: {
        policyName: policy,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    },
  });
  // And, in the same namespace, every child run of a DAG named forbidden-child.
  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: `${policy}-children` },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['kubedag.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['dagruns'] },
          ],
        },
        validations: [
          {
            expression: "!has(object.spec.parent) || object.spec.dagName != 'forbidden-child'",
            message: CHILD_DENIAL,
            reason: 'Forbidden',
          },
        ],
      },
    },
  });
  await admission.createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name: `${policy}-children` },
      spec: {
        policyName: `${policy}-children`,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    },
  });
  // The API server applies a new policy once its informers have it: wait until a dry run is denied.
  const probe = pod('probe').label({ 'refuse-me': 'yes' }).shell('true').build();
  let last: unknown = 'admitted';
  const denied = async (): Promise<boolean> =>
    core.createNamespacedPod({ namespace, body: probe, dryRun: 'All' }).then(
      () => false,
      (e: unknown) => {
        last = apiErrorMessage(e);
        return statusCode(e) === 403;
      },
    );
  await waitFor('the policy to deny Pods', denied, 30_000, 200).catch((error: unknown) => {
    throw new Error(`${String(error)}; last answer: ${String(last)}`);
  });
}

beforeAll(async () => {
  deniedNs = await createNamespace(core, 'refused');
  quotaNs = await createNamespace(core, 'podquota');
  restrictedNs = await createNamespace(core, 'enforced');
  await core.patchNamespace({
    name: restrictedNs,
    body: [{ op: 'add', path: '/metadata/labels/pod-security.kubernetes.io~1enforce', value: 'restricted' }],
  });
  await core.createNamespacedResourceQuota({
    namespace: quotaNs,
    body: { metadata: { name: 'pods' }, spec: { hard: { pods: '0' } } },
  });
  await givenDenyingPolicy(deniedNs);
  operator = await startOperator(deniedNs, undefined, [`--namespaces=${deniedNs},${quotaNs},${restrictedNs}`]);
});

afterAll(async () => {
  await operator.stop();
  for (const name of [policy, `${policy}-children`]) {
    await admission.deleteValidatingAdmissionPolicyBinding({ name }).catch(() => undefined);
    await admission.deleteValidatingAdmissionPolicy({ name }).catch(() => undefined);
  }
  await Promise.all([
    deleteNamespace(core, deniedNs),
    deleteNamespace(core, quotaNs),
    deleteNamespace(core, restrictedNs),
  ]);
});

describe('a step Pod an admission policy denies', () => {
  it("fails the step with the API's message, is not retried, cancels what follows and fails the run, with a Warning Event", async () => {
    await givenDag(
      deniedNs,
      'denied',
      `
steps:
  - {name: a, command: echo never, retryPolicy: {limit: 2, intervalSec: 1}, kubernetes: {labels: {refuse-me: "yes"}}}
  - {name: b, command: echo after, depends: a}
`,
    );
    await whenRun(deniedNs, 'denied-1', 'denied');
    const run = await finishedRun(deniedNs, 'denied-1');
    const a = run.status?.nodes?.find((n) => n.name === 'a');
    expect([run.status?.statusLabel, stepStates(run)]).toEqual(['failed', { a: 'failed', b: 'canceled' }]);
    expect(a?.error).toMatch(
      new RegExp(
        `^the Pod of attempt 0 was refused by the Kubernetes API: pods "[^"]+" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ${DENIAL}$`,
      ),
    );
    expect([a?.attempt, a?.retryCount, a?.attempts?.map((r) => r.status)]).toEqual([0, 0, [2]]);
    expect(run.status?.error).toBe(a?.error);
    const warning = await warningOf(deniedNs, 'denied-1', 'StepPodRefused');
    expect([warning.type, warning.message]).toEqual([
      'Warning',
      expect.stringContaining(
        `step a (attempt 0): the Kubernetes API refused its Pod, so the attempt failed: pods "`,
      ) as unknown,
    ]);
    expect(
      (await core.listNamespacedPod({ namespace: deniedNs, labelSelector: 'kubedag.io/run=denied-1' })).items,
    ).toEqual([]);
  });

  it('lets the run go on past the step with continueOn.failure', async () => {
    await givenDag(
      deniedNs,
      'onward',
      `
steps:
  - {name: a, command: echo never, continueOn: {failure: true}, kubernetes: {labels: {refuse-me: "yes"}}}
  - {name: b, command: echo after, depends: a}
`,
    );
    await whenRun(deniedNs, 'onward-1', 'onward');
    const run = await finishedRun(deniedNs, 'onward-1');
    expect(stepStates(run)).toEqual({ a: 'failed', b: 'succeeded' });
    expect(run.status?.nodes?.find((n) => n.name === 'a')?.error).toContain(DENIAL);
    expect(await stepLog(operator, run, 'b')).toBe('after\n');
  });
});

describe('a step Pod PodSecurity enforce refuses', () => {
  it("fails the step with the API's message", async () => {
    await givenDag(
      restrictedNs,
      'root',
      'steps:\n  - {name: as-root, command: id -u, kubernetes: {podSecurityContext: {runAsUser: 0}}}\n',
    );
    await whenRun(restrictedNs, 'root-1', 'root');
    const run = await finishedRun(restrictedNs, 'root-1');
    expect([run.status?.statusLabel, stepStates(run)]).toEqual(['failed', { 'as-root': 'failed' }]);
    expect(run.status?.nodes?.[0]?.error).toMatch(
      /^the Pod of attempt 0 was refused by the Kubernetes API: pods "[^"]+" is forbidden: violates PodSecurity "restricted:latest": /,
    );
  });
});

describe('a child run an admission policy denies', () => {
  it("fails the sub-DAG step with the API's message and fails the run", async () => {
    await givenDag(
      deniedNs,
      'caller',
      'steps:\n  - {name: nested, call: forbidden-child}\n---\nname: forbidden-child\nsteps:\n  - echo inner\n',
    );
    await whenRun(deniedNs, 'caller-1', 'caller');
    const run = await finishedRun(deniedNs, 'caller-1');
    expect([run.status?.statusLabel, stepStates(run)]).toEqual(['failed', { nested: 'failed' }]);
    expect(run.status?.nodes?.[0]?.error).toMatch(
      new RegExp(`^the child run of attempt 0 was refused by the Kubernetes API: .*denied request: ${CHILD_DENIAL}$`),
    );
  });
});

describe('a step Pod a full ResourceQuota refuses', () => {
  it('keeps the run waiting with a Warning Event that says why, and lets it finish once the quota is raised', async () => {
    await givenDag(quotaNs, 'waits', 'steps:\n  - {name: a, command: echo done}\n');
    await whenRun(quotaNs, 'waits-1', 'waits');
    const warning = await warningOf(quotaNs, 'waits-1', 'StepPodWaiting');
    expect([warning.type, warning.message]).toEqual([
      'Warning',
      expect.stringMatching(
        /^step a \(attempt 0\): the Kubernetes API refused its Pod for now; trying again: pods "[^"]+" is forbidden: exceeded quota: pods/,
      ) as unknown,
    ]);
    const waiting = await getRun(quotaNs, 'waits-1');
    expect([
      waiting.status?.finishedAt,
      waiting.status?.nodes?.find((n) => n.name === 'a')?.statusLabel ?? 'not_started',
    ]).toEqual([undefined, 'not_started']);
    await core.replaceNamespacedResourceQuota({
      name: 'pods',
      namespace: quotaNs,
      body: { metadata: { name: 'pods' }, spec: { hard: { pods: '10' } } },
    });
    const run = await finishedRun(quotaNs, 'waits-1', 120_000);
    expect([run.status?.statusLabel, stepStates(run)]).toEqual(['succeeded', { a: 'succeeded' }]);
  });
});
