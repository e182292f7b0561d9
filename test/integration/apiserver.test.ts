/**
 * The API server end to end: a real kube-apiserver, the real operator running the steps, and
 * every answer checked against the served OpenAPI document.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { clients, waitFor } from './support.ts';

const { core } = clients();
let ns: string;
let api: ContractClient;

interface Run {
  dagRunId: string;
  status: number;
  statusLabel: string;
  nodes: { step: { name: string }; status: number; statusLabel: string; startedAt: string }[];
}

async function finished(name: string, id: string): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} to finish`,
    async () => {
      const res = await api.call('GET', `/api/v2/dag-runs/${name}/${id}`);
      run = (res.body as { dagRunDetails: Run & { finishedAt: string } }).dagRunDetails;
      return res.status === 200 && (run as Run & { finishedAt: string }).finishedAt !== '';
    },
    60_000,
    100,
  );
  return run as Run;
}

withApiStack('kd-api', '/api/v2/openapi.json', (stack) => {
  ({ ns, api } = stack);
});

describe('the API server on the local control plane', () => {
  it('creates, lists, reads, edits, validates, searches, renames and deletes DAGs', async () => {
    expect((await api.call('POST', '/api/v2/dags', { name: 'hello' })).status).toBe(201);
    expect((await api.call('POST', '/api/v2/dags', { name: 'hello' })).body).toMatchObject({ code: 'already_exists' });
    expect((await api.call('POST', '/api/v2/dags', { name: 'bad name' })).status).toBe(400);
    expect(
      (await api.call('POST', '/api/v2/dags', { name: 'broken', spec: 'steps:\n  - comand: x\n' })).body,
    ).toMatchObject({ code: 'bad_request' });
    const spec =
      '# nightly\nname: nightly\ntags: [Daily, ops]\nschedule: "0 1 * * *"\nsteps:\n  - echo one\n  - echo two\n';
    expect((await api.call('POST', '/api/v2/dags', { name: 'nightly', spec })).status).toBe(201);

    const list = (await api.call('GET', '/api/v2/dags?perPage=1&page=2')).body as {
      dags: { fileName: string }[];
      pagination: object;
    };
    expect(list.dags.map((d) => d.fileName)).toEqual(['nightly']);
    expect(list.pagination).toEqual({ totalRecords: 2, currentPage: 2, totalPages: 2, nextPage: null, prevPage: 1 });
    expect(((await api.call('GET', '/api/v2/dags?tag=daily')).body as { dags: unknown[] }).dags).toHaveLength(1);

    const got = (await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string; dag: { name: string } };
    expect([got.spec, got.dag.name]).toEqual([spec, 'nightly']);
    expect((await api.call('GET', '/api/v2/dags/hello/spec')).body).toMatchObject({
      spec: 'steps:\n  - command: echo hello\n',
      errors: [],
    });
    expect(
      (await api.call('PUT', '/api/v2/dags/nightly/spec', { spec: 'steps: [{depends: ghost, command: x}]' })).body,
    ).toMatchObject({ errors: [expect.stringContaining('ghost')] });
    expect(((await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string }).spec).toBe(spec);
    const edited = `${spec}  - echo three\n`;
    expect((await api.call('PUT', '/api/v2/dags/nightly/spec', { spec: edited })).body).toEqual({ errors: [] });
    expect(((await api.call('GET', '/api/v2/dags/nightly/spec')).body as { spec: string }).spec).toBe(edited);
    expect(
      ((await api.call('GET', '/api/v2/dags/nightly')).body as { dag: { steps: unknown[] } }).dag.steps,
    ).toHaveLength(3);

    expect((await api.call('POST', '/api/v2/dags/validate', { spec: 'steps: [echo]', name: 'v' })).body).toMatchObject({
      valid: true,
      errors: [],
      dag: { name: 'v' },
    });
    expect((await api.call('GET', '/api/v2/dags/search?q=ECHO%20t')).body).toMatchObject({
      results: [{ name: 'nightly', matches: [{ lineNumber: 7 }, { lineNumber: 8 }] }],
    });
    expect((await api.call('GET', '/api/v2/dags/tags')).body).toEqual({ tags: ['daily', 'ops'], errors: [] });

    expect((await api.call('POST', '/api/v2/dags/hello/rename', { newFileName: 'nightly' })).body).toMatchObject({
      code: 'already_exists',
    });
    expect((await api.call('POST', '/api/v2/dags/hello/rename', { newFileName: 'greeting' })).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dags/hello')).status).toBe(404);
    expect((await api.call('GET', '/api/v2/dags/greeting')).body).toMatchObject({ dag: { name: 'greeting' } });
    expect((await api.call('DELETE', '/api/v2/dags/greeting')).status).toBe(204);
    expect((await api.call('DELETE', '/api/v2/dags/greeting')).body).toMatchObject({ code: 'not_found' });
  });

  it('accepts and round-trips Pod settings and the Dagu 2.x Kubernetes form, and refuses a bad quantity by its path', async () => {
    const spec = readFileSync(join(import.meta.dirname, '../fixtures/dags/k8s-feature-train.yaml'), 'utf8');
    // The fixture asks for a hostPath volume and names two service accounts: an administrator's
    // choices under the pod policy (docs/pod-policy.md), made here the documented way.
    await core.patchNamespace({
      name: ns,
      body: [{ op: 'add', path: '/metadata/labels/kubedag.io~1pod-policy', value: 'privileged' }],
    });
    for (const name of ['ml-runner', 'model-publisher'])
      await core.createNamespacedServiceAccount({
        namespace: ns,
        body: { metadata: { name, labels: { 'kubedag.io/allow-runs': 'true' } } },
      });
    // The API server reads the namespace's policy again within seconds.
    await waitFor(
      'the raised pod policy to be seen',
      async () =>
        ((await api.call('POST', '/api/v2/dags/validate', { spec })).body as { valid?: boolean }).valid === true,
      30_000,
      250,
    );
    expect((await api.call('POST', '/api/v2/dags', { name: 'feature-train', spec })).status).toBe(201);
    expect(((await api.call('GET', '/api/v2/dags/feature-train/spec')).body as { spec: string }).spec).toBe(spec);
    const bad = 'steps:\n  - {name: s, command: x, kubernetes: {resources: {limits: {memory: lots}}}}\n';
    const refused = await api.call('PUT', '/api/v2/dags/feature-train/spec', { spec: bad });
    expect((refused.body as { errors: string[] }).errors).toEqual([
      expect.stringContaining('steps[0].kubernetes.resources.limits.memory'),
    ]);
    expect(((await api.call('GET', '/api/v2/dags/feature-train/spec')).body as { spec: string }).spec).toBe(spec);
    expect((await api.call('DELETE', '/api/v2/dags/feature-train')).status).toBe(204);
  });

  it('starts a run, follows it to the end, and serves its logs', async () => {
    await api.call('POST', '/api/v2/dags', {
      name: 'greet',
      spec: 'params: NAME=world\nhandlerOn: {exit: {command: echo bye $DAG_RUN_STATUS}}\nsteps:\n  - {name: say, command: echo hello $NAME}\n  - {name: after, command: echo done}\n',
    });
    const started = await api.call('POST', '/api/v2/dags/greet/start', {
      params: '{"NAME":"kube"}',
      dagRunId: 'first',
    });
    expect(started.body).toEqual({ dagRunId: 'first' });
    expect((await api.call('POST', '/api/v2/dags/greet/start', { dagRunId: 'first' })).body).toMatchObject({
      code: 'already_exists',
    });
    const run = await finished('greet', 'first');
    expect([run.statusLabel, run.nodes.map((n) => n.statusLabel)]).toEqual(['succeeded', ['succeeded', 'succeeded']]);
    expect((await api.call('GET', '/api/v2/dag-runs/greet/first/steps/say/log')).body).toEqual({
      content: 'hello kube',
      lineCount: 1,
      totalLines: 1,
      hasMore: false,
      isEstimate: false,
    });
    expect(((await api.call('GET', '/api/v2/dag-runs/greet/first/log')).body as { content: string }).content).toContain(
      'step say succeeded',
    );
    expect((await api.call('GET', '/api/v2/dag-runs/greet/first/steps/ghost/log')).status).toBe(404);
    expect(
      ((await api.call('GET', '/api/v2/dag-runs/greet/first/steps/onExit/log')).body as { content: string }).content,
    ).toBe('bye succeeded');
    expect((await api.call('GET', '/api/v2/services/scheduler')).body).toMatchObject({
      schedulers: [{ status: 'active' }],
    });
    expect((await api.call('GET', '/api/v2/health')).body).toMatchObject({ status: 'healthy' });
    expect(
      ((await api.call('GET', '/api/v2/dag-runs/greet/latest')).body as { dagRunDetails: Run }).dagRunDetails.dagRunId,
    ).toBe('first');
    expect(
      ((await api.call('GET', '/api/v2/dag-runs?name=gre')).body as { dagRuns: Run[] }).dagRuns.map((r) => r.dagRunId),
    ).toEqual(['first']);
    const history = (await api.call('GET', '/api/v2/dags/greet/dag-runs')).body as { gridData: unknown[] };
    expect(history.gridData).toEqual([
      { name: 'after', history: [4] },
      { name: 'say', history: [4] },
      { name: 'onExit', history: [4] },
    ]);
    expect((await api.call('POST', '/api/v2/dag-runs/greet/first/stop')).body).toMatchObject({ code: 'not_running' });
  });

  it('stops a running run, retries a failed one in place and under a new id', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'slow', spec: 'steps:\n  - {name: wait, command: sleep 30}\n' });
    await api.call('POST', '/api/v2/dags/slow/start', { dagRunId: 's1' });
    await waitFor(
      'the step to run',
      async () =>
        ((await api.call('GET', '/api/v2/dag-runs/slow/s1')).body as { dagRunDetails: Run }).dagRunDetails.nodes[0]
          ?.status === 1,
      30_000,
    );
    expect((await api.call('POST', '/api/v2/dag-runs/slow/s1/stop')).status).toBe(200);
    expect((await finished('slow', 's1')).statusLabel).toBe('canceled');

    // The marker lives in the run's workspace: kept for a retry in place, new for a new run id.
    const flaky =
      'steps:\n  - {name: first, command: echo once}\n  - {name: flaky, command: "test -f .marker || { touch .marker; exit 1; }"}\n';
    await api.call('POST', '/api/v2/dags', { name: 'flaky', spec: flaky });
    await api.call('POST', '/api/v2/dags/flaky/start', { dagRunId: 'f1' });
    expect((await finished('flaky', 'f1')).statusLabel).toBe('failed');
    expect((await api.call('POST', '/api/v2/dag-runs/flaky/f1/retry', {})).status).toBe(200);
    // The retry may start and end between two looks: wait for its outcome, not its start.
    await waitFor(
      'the retry to succeed',
      async () =>
        ((await api.call('GET', '/api/v2/dag-runs/flaky/f1')).body as { dagRunDetails: Run }).dagRunDetails
          .statusLabel === 'succeeded',
      30_000,
      50,
    );

    await api.call('POST', '/api/v2/dags/flaky/start', { dagRunId: 'f2' });
    expect((await finished('flaky', 'f2')).statusLabel).toBe('failed');
    expect((await api.call('POST', '/api/v2/dag-runs/flaky/f2/retry', { dagRunId: 'f3' })).status).toBe(200);
    const copy = await finished('flaky', 'f3');
    const original = await finished('flaky', 'f2');
    // The first step kept its success (and start time) from f2; only the failed step ran again,
    // and failed again: the copy has a workspace of its own. The original is untouched.
    expect(copy.nodes.map((n) => n.statusLabel)).toEqual(['succeeded', 'failed']);
    expect(copy.nodes[0]?.startedAt).toBe(original.nodes[0]?.startedAt);
    expect(original.statusLabel).toBe('failed');
  });

  it('respects a step status edited through the API when the run is retried', async () => {
    // `gate` fails every time it runs and counts its runs in the run's workspace; `after`
    // depends on it and shows the count.
    await api.call('POST', '/api/v2/dags', {
      name: 'gated',
      spec: 'steps:\n  - {name: gate, command: "echo ran >> gate-runs; exit 1"}\n  - {name: after, command: cat gate-runs}\n',
    });
    await api.call('POST', '/api/v2/dags/gated/start', { dagRunId: 'g1' });
    expect((await finished('gated', 'g1')).nodes.map((n) => n.statusLabel)).toEqual([
      'failed',
      expect.stringMatching(/^(canceled|not_started)$/) as unknown,
    ]);
    // An operator marks the failed step as done by hand; the retry must keep it and run only what follows.
    expect((await api.call('PATCH', '/api/v2/dag-runs/gated/g1/steps/gate/status', { status: 4 })).status).toBe(200);
    expect((await api.call('POST', '/api/v2/dag-runs/gated/g1/retry', {})).status).toBe(200);
    await waitFor(
      'the retry to succeed',
      async () =>
        ((await api.call('GET', '/api/v2/dag-runs/gated/g1')).body as { dagRunDetails: Run }).dagRunDetails
          .statusLabel === 'succeeded',
      30_000,
      50,
    );
    const retried = await finished('gated', 'g1');
    expect(retried.nodes.map((n) => n.statusLabel)).toEqual(['succeeded', 'succeeded']);
    expect(
      ((await api.call('GET', '/api/v2/dag-runs/gated/g1/steps/after/log')).body as { content: string }).content,
    ).toBe('ran');
  });

  it('queues enqueued runs behind a running one, dequeues, and starts the next when room frees', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'single', spec: 'steps:\n  - {name: nap, command: sleep 2}\n' });
    await api.call('POST', '/api/v2/dags/single/start', { dagRunId: 'a' });
    await api.call('POST', '/api/v2/dags/single/enqueue', { dagRunId: 'b' });
    await api.call('POST', '/api/v2/dags/single/enqueue', { dagRunId: 'c' });
    await waitFor(
      'a to run while b and c wait',
      async () => {
        const { queues } = (await api.call('GET', '/api/v2/queues')).body as {
          queues: { name: string; type: string; summary: object }[];
        };
        return (
          JSON.stringify(queues.find((q) => q.name === 'single')?.summary) ===
          JSON.stringify({ running: 1, queued: 2, total: 3 })
        );
      },
      30_000,
      50,
    );
    const { dagRuns } = (await api.call('GET', '/api/v2/dag-runs/single?status=5')).body as { dagRuns: Run[] };
    expect(dagRuns.map((r) => r.dagRunId).sort()).toEqual(['b', 'c']);
    expect((await api.call('GET', '/api/v2/dag-runs/single/b/dequeue')).status).toBe(200);
    expect((await api.call('GET', '/api/v2/dag-runs/single/b')).status).toBe(404);
    expect((await finished('single', 'a')).statusLabel).toBe('succeeded');
    const next = await finished('single', 'c');
    expect([next.statusLabel, (next as Run & { queuedAt: string }).queuedAt]).toEqual([
      'succeeded',
      expect.stringMatching(/Z$/) as unknown,
    ]);
  });

  it('runs inline DAGs and sub-DAGs, with sub runs under their root', async () => {
    const spec =
      'name: adhoc\nsteps:\n  - {name: call, call: child, params: "X=1"}\n---\nname: child\nparams: X=0\nsteps:\n  - {name: inner, command: echo inner $X}\n';
    expect((await api.call('POST', '/api/v2/dag-runs', { spec, dagRunId: 'in1' })).body).toEqual({ dagRunId: 'in1' });
    const parent = await finished('adhoc', 'in1');
    expect(parent.statusLabel).toBe('succeeded');
    const { subRuns } = (await api.call('GET', '/api/v2/dag-runs/adhoc/in1/sub-dag-runs')).body as {
      subRuns: { dagRunId: string; statusLabel: string }[];
    };
    expect(subRuns).toEqual([expect.objectContaining({ statusLabel: 'succeeded' })]);
    const child = subRuns[0]?.dagRunId ?? '';
    expect((await api.call('GET', `/api/v2/dag-runs/adhoc/in1/sub-dag-runs/${child}`)).body).toMatchObject({
      dagRunDetails: { name: 'child', parentDAGRunName: 'adhoc', parentDAGRunId: 'in1' },
    });
    expect(
      (
        (await api.call('GET', `/api/v2/dag-runs/adhoc/in1/children/${child}/steps/inner/log`)).body as {
          content: string;
        }
      ).content,
    ).toBe('inner 1');
  });

  it('keeps run history when a DAG named by its file is renamed', async () => {
    await api.call('POST', '/api/v2/dags', { name: 'before', spec: 'steps: [echo hi]\n' });
    await api.call('POST', '/api/v2/dags/before/start', { dagRunId: 'h1' });
    await finished('before', 'h1');
    expect((await api.call('POST', '/api/v2/dags/before/rename', { newFileName: 'after' })).status).toBe(200);
    expect(
      ((await api.call('GET', '/api/v2/dags/after/dag-runs')).body as { dagRuns: Run[] }).dagRuns.map(
        (r) => r.dagRunId,
      ),
    ).toEqual(['h1']);
    expect((await api.call('GET', '/api/v2/dag-runs/after/h1')).status).toBe(200);
    expect((await api.call('DELETE', '/api/v2/dags/after')).status).toBe(204);
    expect(api.checked).toBeGreaterThan(40);
  });

  it("says a log's tail has more when earlier lines were left out, as Dagu's web UI reads it", async () => {
    await api.call('POST', '/api/v2/dags', { name: 'count', spec: 'steps:\n  - {name: five, command: seq 1 5}\n' });
    await api.call('POST', '/api/v2/dags/count/start', { dagRunId: 'c1' });
    expect((await finished('count', 'c1')).statusLabel).toBe('succeeded');
    expect((await api.call('GET', '/api/v2/dag-runs/count/c1/steps/five/log?tail=2')).body).toEqual({
      content: '4\n5',
      lineCount: 2,
      totalLines: 5,
      hasMore: true,
      isEstimate: false,
    });
    expect((await api.call('GET', '/api/v2/dag-runs/count/c1/steps/five/log?tail=5')).body).toMatchObject({
      lineCount: 5,
      hasMore: false,
    });
    expect((await api.call('GET', '/api/v2/dag-runs/count/c1/log?tail=1')).body).toMatchObject({
      lineCount: 1,
      hasMore: true,
    });
  });
});
