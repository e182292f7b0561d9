/**
 * A run's life on a cluster with the chart installed: its step's log through the API while the
 * step runs and after its Pod is gone, a stop whose signal reaches the step's process in its
 * container, a run in a namespace that enforces the `restricted` Pod Security Standard, the
 * operator's Pod killed in the middle of a run (the run ends as it would have, no step twice),
 * and the web UI served by the chart's API server, in Chromium.
 */
import { PassThrough } from 'node:stream';
import { Exec } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { GROUP, LABELS, VERSION } from '../../core/resources/constants.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { launchChromium } from '../../scripts/chromium.ts';
import { openPage, screenshot } from '../integration/browser-support.ts';
import { pod } from '../builders/pod.ts';
import { DaguApi, e2eClients, forwardService, labels, until, type Forwarded } from './support.ts';

const { kc, core, custom } = e2eClients();
const { namespace, release } = inject('e2e');
const suffix = Date.now().toString(36);
let forwarded: Forwarded;
let api: DaguApi;

/** The step Pods of a run the API started (the DAGRun's name is the operator's business; its labels are not). */
const stepPods = async (ns: string, dag: string, dagRunId: string): Promise<string[]> =>
  (
    await core.listNamespacedPod({ namespace: ns, labelSelector: `${LABELS.dag}=${dag},${LABELS.runId}=${dagRunId}` })
  ).items.map((p) => p.metadata?.name ?? '');

beforeAll(async () => {
  forwarded = await forwardService(kc, namespace, `${release}-api`, 8080);
  api = new DaguApi(forwarded.url);
});

afterAll(async () => {
  await forwarded.close();
});

describe("a run's life on the cluster", () => {
  it("serves a step's log while the step runs and after its Pod is gone", async () => {
    const name = `e2e-logs-${suffix}`;
    await api.start(
      name,
      'steps:\n  - {name: talk, command: "sh -c \'echo first line; while [ ! -f go ]; do sleep 0.2; done; echo last line\'"}\n  - {name: release, command: "true"}\n',
      'l1',
    );
    await api.running(name, 'l1', 'talk');
    // The step waits for a file that nothing writes yet: its first line is all it has printed.
    await api.logBecomes(name, 'l1', 'talk', 'first line');
    const [talkPod] = await stepPods(namespace, name, 'l1');
    expect(talkPod).toBeDefined();
    // An exec runs in the container's working directory: the run's workspace, where the step looks.
    await execIn(namespace, talkPod ?? '', ['sh', '-c', 'touch go']);
    const run = await api.finished(name, 'l1');
    expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { talk: 'succeeded', release: 'succeeded' }]);
    await until(
      "the run's step Pods to be gone",
      async () => (await stepPods(namespace, name, 'l1')).length === 0,
      60_000,
    );
    expect(await api.log(name, 'l1', 'talk')).toBe('first line\nlast line');
  });

  it("stops a long step: TERM reaches the step's process in its container, the cancel handler runs", async () => {
    const name = `e2e-stop-${suffix}`;
    await api.start(
      name,
      'maxCleanUpTimeSec: 10\nhandlerOn: {cancel: {command: echo canceled}}\nsteps:\n  - {name: long, command: "sh -c \'trap \\"echo got-term; exit 0\\" TERM; echo waiting; while :; do sleep 0.1; done\'"}\n  - {name: never, depends: long, command: echo never}\n',
      's1',
    );
    await api.running(name, 's1', 'long');
    await api.logBecomes(name, 's1', 'long', 'waiting');
    expect((await api.call('POST', `/dag-runs/${name}/s1/stop`)).status).toBe(200);
    const run = await api.finished(name, 's1');
    expect([run.statusLabel, labels(run), run.onCancel?.statusLabel]).toEqual([
      'canceled',
      { long: 'canceled', never: 'not_started' },
      'succeeded',
    ]);
    expect(await api.log(name, 's1', 'long')).toBe('waiting\ngot-term');
  });

  it('runs a DAG in a namespace that enforces the restricted Pod Security Standard', async () => {
    const ns = `e2e-restricted-${suffix}`;
    await core.createNamespace({
      body: { metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
    });
    try {
      // Enforcement is on: a Pod as its image wants it (root, no seccomp profile) is refused.
      const refused = await core
        .createNamespacedPod({ namespace: ns, body: pod('as-root').shell('true').build() })
        .then(
          () => 'created',
          (error: unknown) => String(error),
        );
      expect(refused).toMatch(/violates PodSecurity \W+restricted/);
      const name = 'restricted-steps';
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: 'dags',
        body: dagManifest(
          name,
          loadDag('steps:\n  - {name: who, command: "sh -c \'id -u; echo hi > note; cat note\'"}\n', { fileName: name })
            .documents,
          ns,
        ),
      });
      await custom.createNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace: ns,
        plural: 'dagruns',
        body: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: 'DAGRun',
          metadata: { name: `${name}-1` },
          spec: { dagRef: { name } },
        },
      });
      let label = '';
      await until(
        'the restricted run to end',
        async () => {
          const run = (await custom.getNamespacedCustomObject({
            group: GROUP,
            version: VERSION,
            namespace: ns,
            plural: 'dagruns',
            name: `${name}-1`,
          })) as { status?: { statusLabel?: string; finishedAt?: string } };
          label = run.status?.statusLabel ?? '';
          return (run.status?.finishedAt ?? '') !== '';
        },
        180_000,
      );
      expect(label).toBe('succeeded');
    } finally {
      await core.deleteNamespace({ name: ns });
    }
  });

  it('finishes a run whose operator Pod is killed in the middle, each step once', async () => {
    const name = `e2e-kill-${suffix}`;
    await api.start(
      name,
      'steps:\n  - {name: slow, command: "sh -c \'echo ran >> runs.txt; sleep 8\'"}\n  - {name: count, depends: slow, command: cat runs.txt}\n',
      'o1',
    );
    await api.running(name, 'o1', 'slow');
    const selector = `app.kubernetes.io/instance=${release},app.kubernetes.io/component=operator`;
    const [before] = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items;
    await core.deleteNamespacedPod({ namespace, name: before?.metadata?.name ?? '', gracePeriodSeconds: 0 });
    const run = await api.finished(name, 'o1');
    expect([run.statusLabel, labels(run)]).toEqual(['succeeded', { slow: 'succeeded', count: 'succeeded' }]);
    // The operator's log endpoint (where the API reads archived logs) may still be coming back.
    await api.logBecomes(name, 'o1', 'count', 'ran');
    const after = (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.filter(
      (p) => p.metadata?.deletionTimestamp === undefined,
    );
    expect(after.map((p) => p.metadata?.uid)).not.toContain(before?.metadata?.uid);
    expect(after.some((p) => p.status?.containerStatuses?.[0]?.ready === true)).toBe(true);
  });

  it("serves the web UI: a DAG's run and its step's log in Chromium", async () => {
    const name = `e2e-ui-${suffix}`;
    await api.start(name, 'steps:\n  - {name: greet, command: echo hello from the real node}\n', 'u1');
    expect((await api.finished(name, 'u1')).statusLabel).toBe('succeeded');
    const browser = await launchChromium();
    try {
      const page = await openPage(browser, { viewport: { width: 1280, height: 800 }, timeoutMs: 30_000 });
      await page.goto(`${forwarded.url}/dags`);
      await page.getByRole('link', { name }).click();
      await page.getByRole('heading', { level: 1, name: new RegExp(name) }).waitFor();
      await page.goto(`${forwarded.url}/runs/${name}/u1/steps/greet/log`);
      await page.getByText('hello from the real node').waitFor();
      await screenshot(page, 'e2e-step-log');
    } finally {
      await browser.close();
    }
  });
});

/** Runs a command in a Pod's one container, as `kubectl exec` does. */
async function execIn(ns: string, name: string, command: string[]): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    // The operator names a step Pod's one container `step`.
    // The API refuses an exec that attaches no stream.
    void new Exec(kc)
      .exec(ns, name, 'step', command, null, new PassThrough(), null, false, (status) => {
        if (status.status === 'Success') resolve();
        else reject(new Error(`exec ${command.join(' ')} in ${name}: ${status.message ?? status.status ?? ''}`));
      })
      .catch(reject);
  });
}
