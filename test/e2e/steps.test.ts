/**
 * What steps do on a cluster with the chart installed, driven through Dagu's API of its API
 * server: a chain runs in order, a parallel group runs at once and meets in the run's workspace,
 * a `parallel` sub-DAG call runs its child runs, retries retry, an http step reaches a Service by
 * its DNS name and a jq step reads its answer in Pods of the runner image, a DAG-level container
 * takes every step's command, and a `containerName` step execs into a running Pod of the
 * namespace. On the real node (make real-node-e2e) each of them is a container under containerd.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pod } from '../builders/pod.ts';
import { DaguApi, e2eClients, forwardService, labels, until, type Forwarded } from './support.ts';

const { kc, core } = e2eClients();
const { namespace, release, stepImage } = inject('e2e');
const suffix = Date.now().toString(36);
let forwarded: Forwarded;
let api: DaguApi;

beforeAll(async () => {
  forwarded = await forwardService(kc, namespace, `${release}-api`, 8080);
  api = new DaguApi(forwarded.url);
});

afterAll(async () => {
  await forwarded.close();
});

describe('steps on the cluster', () => {
  it('runs a chain in order, each step once', async () => {
    const name = `e2e-chain-${suffix}`;
    await api.start(
      name,
      'steps:\n  - {name: one, command: echo one}\n  - {name: two, command: echo two, depends: one}\n  - {name: three, command: echo three, depends: two}\n',
      'c1',
    );
    const run = await api.finished(name, 'c1');
    expect([run.statusLabel, labels(run)]).toEqual([
      'succeeded',
      { one: 'succeeded', two: 'succeeded', three: 'succeeded' },
    ]);
    const [one, two, three] = run.nodes;
    // Each step started after the one it depends on finished.
    expect(Date.parse(two?.startedAt ?? '') >= Date.parse(one?.finishedAt ?? '')).toBe(true);
    expect(Date.parse(three?.startedAt ?? '') >= Date.parse(two?.finishedAt ?? '')).toBe(true);
    expect(await api.log(name, 'c1', 'three')).toBe('three');
  });

  it("runs a parallel group at once, its steps meeting in the run's workspace, and the next step after both", async () => {
    const name = `e2e-group-${suffix}`;
    // Each side marks its start and succeeds only once it sees the other's mark: only steps that
    // run at the same time, sharing one workspace, can both succeed.
    const side = (me: string, other: string): string =>
      `{name: ${me}, command: "sh -c 'touch ${me}.started; i=0; while [ ! -f ${other}.started ]; do i=$((i+1)); [ $i -gt 600 ] && exit 1; sleep 0.1; done; echo ${me} saw ${other}'"}`;
    const spec = `steps:\n  - {name: begin, command: "sh -c 'echo begun > begun.txt'"}\n  - - ${side('left', 'right')}\n    - ${side('right', 'left')}\n  - {name: end, command: "sh -c 'cat begun.txt; ls *.started'"}\n`;
    await api.start(name, spec, 'g1');
    const run = await api.finished(name, 'g1');
    expect([run.statusLabel, labels(run)]).toEqual([
      'succeeded',
      { begin: 'succeeded', left: 'succeeded', right: 'succeeded', end: 'succeeded' },
    ]);
    expect(await api.log(name, 'g1', 'left')).toBe('left saw right');
    expect(await api.log(name, 'g1', 'end')).toBe('begun\nleft.started\nright.started');
  });

  it('calls a sub-DAG for each item of a parallel step, each a child run', async () => {
    const name = `e2e-fanout-${suffix}`;
    const spec = `steps:\n  - name: each\n    run: child\n    parallel: {items: [red, green, blue], maxConcurrent: 2}\n    params: "COLOR=\${ITEM}"\n---\nname: child\nparams: COLOR=none\nsteps:\n  - {name: paint, command: echo painted $COLOR, output: PAINTED}\n`;
    await api.start(name, spec, 'f1');
    const run = await api.finished(name, 'f1');
    expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { each: 'succeeded' }]);
    const children = run.nodes[0]?.subRuns ?? [];
    expect(children).toHaveLength(3);
    const painted = await Promise.all(
      children.map(async ({ dagRunId }) => {
        const response = await api.call('GET', `/dag-runs/${name}/f1/sub-dag-runs/${dagRunId}`);
        const child = ((await response.json()) as { dagRunDetails: { statusLabel: string; params?: string } })
          .dagRunDetails;
        const log = (await (
          await api.call('GET', `/dag-runs/${name}/f1/sub-dag-runs/${dagRunId}/steps/paint/log`)
        ).json()) as { content?: string };
        return `${child.statusLabel} ${log.content ?? ''}`;
      }),
    );
    expect(painted.sort()).toEqual(['succeeded painted blue', 'succeeded painted green', 'succeeded painted red']);
  });

  it('retries a failing step until it succeeds, counting its retries', async () => {
    const name = `e2e-retry-${suffix}`;
    // The workspace keeps the count across attempts, each a Pod of its own.
    const spec = `steps:\n  - name: flaky\n    command: "sh -c 'n=$(cat tries 2>/dev/null || echo 0); n=$((n+1)); echo $n > tries; echo try $n; [ $n -ge 3 ]'"\n    retryPolicy: {limit: 3, intervalSec: 1}\n`;
    await api.start(name, spec, 'r1');
    const run = await api.finished(name, 'r1');
    expect([run.statusLabel, run.nodes[0]?.statusLabel, run.nodes[0]?.retryCount]).toEqual([
      'succeeded',
      'succeeded',
      2,
    ]);
    expect(await api.log(name, 'r1', 'flaky')).toBe('try 3');
  });

  it("reaches the API server's Service by its DNS name from an http step, and a jq step reads the answer", async () => {
    const name = `e2e-http-${suffix}`;
    const url = `http://${release}-api.${namespace}.svc.cluster.local:8080/api/v2/health`;
    const spec = `steps:\n  - {name: ask, executor: {type: http, config: {silent: true, timeout: 30}}, command: GET ${url}, output: HEALTH}\n  - {name: pick, depends: ask, executor: {type: jq, config: {raw: true}}, command: .status, script: "\${HEALTH}"}\n`;
    await api.start(name, spec, 'h1');
    const run = await api.finished(name, 'h1');
    expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { ask: 'succeeded', pick: 'succeeded' }]);
    expect(await api.log(name, 'h1', 'pick')).toBe('healthy');
  });

  it("runs every step's command in the DAG-level container, which keeps state between steps", async () => {
    const name = `e2e-container-${suffix}`;
    const spec = `container:\n  image: ${stepImage}\n  env: [FROM_CONTAINER=inside]\nsteps:\n  - {name: write, command: "sh -c 'echo $FROM_CONTAINER > /tmp/kept'"}\n  - {name: read, depends: write, command: cat /tmp/kept}\n`;
    await api.start(name, spec, 'k1');
    const run = await api.finished(name, 'k1');
    expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { write: 'succeeded', read: 'succeeded' }]);
    expect(await api.log(name, 'k1', 'read')).toBe('inside');
  });

  it('execs a containerName step into a running Pod of the namespace', async () => {
    const target = pod(`e2e-target-${suffix}`)
      .shell('exec sleep 600')
      .grace(1)
      .podSecurity({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } })
      .security({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })
      .build();
    const container = target.spec?.containers[0];
    if (container !== undefined) container.image = stepImage;
    await core.createNamespacedPod({ namespace, body: target });
    await until(
      'the target Pod to run',
      async () =>
        (await core.readNamespacedPod({ namespace, name: target.metadata?.name ?? '' })).status?.phase === 'Running',
      120_000,
    );
    try {
      const name = `e2e-exec-${suffix}`;
      const spec = `steps:\n  - {name: write, executor: {type: docker, config: {containerName: ${target.metadata?.name ?? ''}}}, command: "sh -c 'echo from-exec > /tmp/mark'"}\n  - {name: read, depends: write, executor: {type: docker, config: {containerName: ${target.metadata?.name ?? ''}}}, command: cat /tmp/mark}\n`;
      await api.start(name, spec, 'x1');
      const run = await api.finished(name, 'x1');
      expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { write: 'succeeded', read: 'succeeded' }]);
      expect(await api.log(name, 'x1', 'read')).toBe('from-exec');
    } finally {
      await core.deleteNamespacedPod({ namespace, name: target.metadata?.name ?? '', gracePeriodSeconds: 0 });
    }
  });
});
