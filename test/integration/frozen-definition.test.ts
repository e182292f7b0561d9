/**
 * Frozen definitions out of the DAGRun (issue 23, docs/decisions/2026-11-28-frozen-definition.md):
 * a dagRef run's definition is written once into its own DAGRunSegment, the DAGRun only names
 * it, and every reader (operator, API server, retries) takes it from there; runs frozen the old
 * way (spec.snapshot) keep working. A real kube-apiserver, the operator and the API server.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AdmissionregistrationV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { bigDagYaml } from '../../bench/scale-runs.ts';
import { readFrozenDefinition } from '../../core/kube/frozen-definitions.ts';
import { definitionSegment } from '../../core/resources/frozen.ts';
import { dagRunResourceName, definitionSegmentName } from '../../core/resources/names.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRunSegment } from '../builders/dag-run-segment.ts';
import { dagRun } from '../builders/dag-run.ts';
import { ContractClient, startApi } from './api-support.ts';
import {
  finishedRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  storedRun,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const { kc, core, kube } = clients();
const admission = kc.makeApiClient(AdmissionregistrationV1Api);
/** Cluster-scoped, so named apart from other files' policies: refuses definition segments of runs named `refused-*`. */
const policy = `kubedag-frozen-${randomBytes(3).toString('hex')}`;
let ns = '';
let operator: RunningOperator;
let server: Server;
let api: ContractClient;

interface Details {
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: { step: { name: string; command?: string }; statusLabel: string }[];
}

async function details(name: string, id: string): Promise<Details> {
  const res = await api.call('GET', `/api/v2/dag-runs/${name}/${id}`);
  expect(res.status).toBe(200);
  return (res.body as { dagRunDetails: Details }).dagRunDetails;
}

async function finishedThroughApi(name: string, id: string, after?: (d: Details) => boolean): Promise<Details> {
  let found: Details | undefined;
  await waitFor(
    `run ${id} of ${name} to finish`,
    async () => {
      found = await details(name, id);
      return found.finishedAt !== '' && (after === undefined || after(found));
    },
    60_000,
    100,
  );
  return found as Details;
}

const definitionOf = async (run: DagRunResource): Promise<Record<string, unknown> | undefined> =>
  readFrozenDefinition(kube.segments, run);

/** A directory the steps read from (the host is their image); not under /tmp, which each container has for itself. */
function imageDir(prefix: string): string {
  const dir = mkdtempSync(join('/var/tmp', prefix));
  chmodSync(dir, 0o755);
  return dir;
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-frozen');
  // A freeze killed between its two writes, made before any operator runs: the run's definition
  // segment holds the first version, the DAG has moved on to a second.
  await givenDag(ns, 'crashed', 'steps: ["echo second"]');
  await whenRun(ns, 'crashed-run', 'crashed');
  const crashed = await storedRun(ns, 'crashed-run');
  await kube.segments.create(
    ns,
    definitionSegment(
      { name: 'crashed-run', namespace: ns, uid: crashed.metadata?.uid ?? '' },
      { steps: ['echo first'] },
    ),
  );
  // The same, and its DAG deleted since.
  await whenRun(ns, 'orphaned-run', 'gone');
  const orphaned = await storedRun(ns, 'orphaned-run');
  await kube.segments.create(
    ns,
    definitionSegment(
      { name: 'orphaned-run', namespace: ns, uid: orphaned.metadata?.uid ?? '' },
      { steps: ['echo kept'] },
    ),
  );
  operator = await startOperator(ns);
  server = await startApi(ns, operator.url);
  api = new ContractClient(server.app);
  await api.load();
});

/** Segments of runs named `refused-*` are refused as too large, as etcd refuses one over its limit. */
async function givenRefusedSegments(): Promise<void> {
  await admission.createValidatingAdmissionPolicy({
    body: {
      metadata: { name: policy },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [
            { apiGroups: ['kubedag.io'], apiVersions: ['*'], operations: ['CREATE'], resources: ['dagrunsegments'] },
          ],
        },
        validations: [
          {
            expression: "!object.spec.run.startsWith('refused-')",
            message: 'request is too large',
            reason: 'RequestEntityTooLarge',
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
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
      },
    },
  });
  // The API server applies a new policy once its informers have it: wait until it denies a probe.
  await waitFor(
    'the policy to refuse segments',
    async () =>
      kube.segments.create(ns, dagRunSegment('probe').forRun('refused-probe').build()).then(
        async () => {
          await kube.segments.delete(ns, 'probe');
          return false;
        },
        () => true,
      ),
    30_000,
    200,
  );
}

afterAll(async () => {
  await admission.deleteValidatingAdmissionPolicyBinding({ name: policy }).catch(() => undefined);
  await admission.deleteValidatingAdmissionPolicy({ name: policy }).catch(() => undefined);
  await server.close();
  await operator.stop();
  await deleteNamespace(core, ns);
});

describe('a frozen definition in its own segment', () => {
  it('keeps the definition out of a kubectl run: its segment holds the DAG as it was, and editing the DAG changes nothing for it', async () => {
    await givenDag(ns, 'frozen', 'steps: ["sleep 2", echo first-version]');
    await whenRun(ns, 'frozen-run', 'frozen');
    await waitFor(
      'the run to be frozen',
      async () => (await storedRun(ns, 'frozen-run')).spec.frozenDefinition !== undefined,
      30_000,
      100,
    );
    await kube.dags.jsonPatch(ns, 'frozen', [{ op: 'replace', path: '/spec/steps', value: ['exit 9'] }]);
    const done = await finishedRun(ns, 'frozen-run');
    expect([done.status?.statusLabel, done.spec.snapshot, done.spec.frozenDefinition?.segment]).toEqual([
      'succeeded',
      undefined,
      definitionSegmentName('frozen-run'),
    ]);
    expect(await definitionOf(done)).toEqual({ steps: ['sleep 2', 'echo first-version'] });
    expect(await stepLog(operator, done, 'cmd_2')).toBe('first-version\n');
    const segment = await kube.segments.get(ns, definitionSegmentName('frozen-run'));
    expect(segment.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.uid])).toEqual([
      ['DAGRun', 'frozen-run', done.metadata?.uid],
    ]);
  });

  it('takes a segment written before a crash as it is, even once its DAG is gone: a run never has two definitions', async () => {
    const done = await finishedRun(ns, 'crashed-run');
    expect([done.status?.statusLabel, done.spec.frozenDefinition?.segment]).toEqual([
      'succeeded',
      definitionSegmentName('crashed-run'),
    ]);
    expect(await definitionOf(done)).toEqual({ steps: ['echo first'] });
    expect(await stepLog(operator, done, 'cmd_1')).toBe('first\n');
    const orphaned = await finishedRun(ns, 'orphaned-run');
    expect([orphaned.status?.statusLabel, await stepLog(operator, orphaned, 'cmd_1')]).toEqual(['succeeded', 'kept\n']);
  });

  it('retries a run the API started, in place and under a new id, with its frozen definition after its DAG was edited', async () => {
    const dir = imageDir('kd-frozen-');
    const v1 = `kubernetes: {workspace: false}\nworkingDir: ${dir}\nsteps:\n  - {name: first, command: echo v1-first}\n  - {name: flaky, command: cat flag}\n`;
    expect((await api.call('POST', '/api/v2/dags', { name: 'retried', spec: v1 })).status).toBe(201);
    expect((await api.call('POST', '/api/v2/dags/retried/start', { dagRunId: 'one' })).status).toBe(200);
    const started = await storedRun(ns, dagRunResourceName('retried', 'one'));
    expect([started.spec.snapshot, started.spec.definition, started.spec.frozenDefinition?.segment]).toEqual([
      undefined,
      undefined,
      definitionSegmentName(started.metadata?.name ?? ''),
    ]);
    const failed = await finishedThroughApi('retried', 'one');
    expect([failed.statusLabel, failed.nodes.map((n) => [n.step.name, n.statusLabel])]).toEqual([
      'failed',
      [
        ['first', 'succeeded'],
        ['flaky', 'failed'],
      ],
    ]);

    expect(
      (await api.call('PUT', '/api/v2/dags/retried/spec', { spec: 'steps:\n  - {name: edited, command: exit 9}\n' }))
        .status,
    ).toBe(200);
    writeFileSync(join(dir, 'flag'), 'from-the-retry\n');
    expect((await api.call('POST', '/api/v2/dag-runs/retried/one/retry', {})).status).toBe(200);
    const again = await finishedThroughApi('retried', 'one', (d) => d.statusLabel !== 'failed');
    expect([again.statusLabel, again.nodes.map((n) => [n.step.name, n.step.command, n.statusLabel])]).toEqual([
      'succeeded',
      [
        ['first', 'echo', 'succeeded'],
        ['flaky', 'cat', 'succeeded'],
      ],
    ]);
    expect(
      await stepLog(operator, await storedRun(ns, dagRunResourceName('retried', 'one')), 'flaky', 'stdout', 1),
    ).toBe('from-the-retry\n');

    expect((await api.call('POST', '/api/v2/dag-runs/retried/one/retry', { dagRunId: 'two' })).status).toBe(200);
    const copy = await finishedThroughApi('retried', 'two');
    expect([copy.statusLabel, copy.nodes.map((n) => [n.step.name, n.statusLabel])]).toEqual([
      'succeeded',
      [
        ['first', 'succeeded'],
        ['flaky', 'succeeded'],
      ],
    ]);
    const [original, retried] = await Promise.all(
      ['one', 'two'].map((id) => storedRun(ns, dagRunResourceName('retried', id))),
    );
    expect(retried?.spec.snapshot).toBeUndefined();
    expect(await definitionOf(retried as DagRunResource)).toEqual(await definitionOf(original as DagRunResource));
  }, 120_000);

  it('accepts, stores and freezes a definition of 10,000 steps (~360 KB of YAML) while its DAGRun stays small', async () => {
    const yaml = bigDagYaml('chain', 10_000).replace('command: "true"', 'command: "sleep 60"');
    expect(Buffer.byteLength(yaml)).toBeGreaterThan(350_000);
    expect((await api.call('POST', '/api/v2/dags', { name: 'huge', spec: yaml })).status).toBe(201);
    expect((await api.call('POST', '/api/v2/dags/huge/start', { dagRunId: 'big' })).status).toBe(200);
    const name = dagRunResourceName('huge', 'big');
    await waitFor(
      'the first step to run',
      async () => (await storedRun(ns, name)).status?.nodes?.some((n) => n.statusLabel === 'running') === true,
      60_000,
      250,
    );
    const running = await storedRun(ns, name);
    const segment = await kube.segments.get(ns, running.spec.frozenDefinition?.segment ?? '');
    expect(Buffer.byteLength(JSON.stringify(running))).toBeLessThan(16 * 1024);
    expect(Buffer.byteLength(JSON.stringify(segment))).toBeGreaterThan(300_000);
    expect(Buffer.byteLength(JSON.stringify(segment))).toBeLessThan(1024 * 1024);
    expect(segment.spec.definition).toEqual((await kube.dags.get(ns, 'huge')).spec);
    expect((await api.call('POST', '/api/v2/dag-runs/huge/big/stop')).status).toBe(200);
    const stopped = await finishedThroughApi('huge', 'big');
    expect([
      stopped.statusLabel,
      stopped.nodes.length,
      stopped.nodes[0]?.statusLabel,
      stopped.nodes[9_999]?.step.name,
    ]).toEqual(['canceled', 10_000, 'canceled', 's10000']);
  }, 180_000);

  it('fails a run whose definition the Kubernetes API refuses to store, with the reason, and takes back a run the API server could not freeze', async () => {
    await givenRefusedSegments();
    await givenDag(ns, 'refused', 'steps: ["echo never"]');
    await whenRun(ns, 'refused-run', 'refused');
    const done = await finishedRun(ns, 'refused-run');
    expect([done.status?.statusLabel, done.status?.endReason, done.spec.frozenDefinition]).toEqual([
      'failed',
      'rejected',
      undefined,
    ]);
    expect(done.status?.error).toMatch(
      /^its definition could not be frozen: the Kubernetes API refused it \(the size limit of an object\)/,
    );
    expect(
      (await api.call('POST', '/api/v2/dags', { name: 'refused-api', spec: 'steps: ["echo never"]' })).status,
    ).toBe(201);
    expect((await api.call('POST', '/api/v2/dags/refused-api/start', { dagRunId: 'x' })).status).toBeGreaterThanOrEqual(
      400,
    );
    await expect(kube.runs.get(ns, dagRunResourceName('refused-api', 'x'))).rejects.toMatchObject({ code: 404 });
  });

  it('runs and shows a run frozen the old way, with the definition in spec.snapshot', async () => {
    await givenDag(ns, 'legacy', 'steps: ["exit 9"]');
    const old = dagRun('legacy-old')
      .namespace(ns)
      .spec({
        dagRef: { name: 'legacy' },
        dagName: 'legacy',
        dagRunId: 'old',
        snapshot: { steps: ['echo from-the-snapshot'] },
      })
      .build();
    await kube.runs.create(ns, old);
    const done = await finishedRun(ns, 'legacy-old');
    expect([done.status?.statusLabel, stepStates(done), done.spec.frozenDefinition]).toEqual([
      'succeeded',
      { cmd_1: 'succeeded' },
      undefined,
    ]);
    expect(await stepLog(operator, done, 'cmd_1')).toBe('from-the-snapshot\n');
    const shown = await finishedThroughApi('legacy', 'old');
    expect(shown.nodes.map((n) => n.step.command)).toEqual(['echo']);
    // Reschedule copies the snapshot into a new run's own segment.
    expect((await api.call('POST', '/api/v2/dag-runs/legacy/old/reschedule', { dagRunId: 'anew' })).status).toBe(200);
    const anew = await finishedRun(ns, dagRunResourceName('legacy', 'anew'));
    expect([anew.status?.statusLabel, anew.spec.snapshot, await definitionOf(anew)]).toEqual([
      'succeeded',
      undefined,
      { steps: ['echo from-the-snapshot'] },
    ]);
  });
});
