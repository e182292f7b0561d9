/**
 * `make real-node-e2e`, as root, where there is no Docker: builds the image (make image), starts
 * a local cluster with a real node (cluster/real-node) in a temporary directory, imports the
 * image's archive into the node's containerd, installs the chart with it (helm upgrade
 * --install, waiting for the rollout; the operator's default step image the busybox image built
 * for the node) and runs the e2e suite (test/e2e) against that release, as `make kind-e2e`
 * does on kind. The cluster is stopped afterwards, every trace removed, unless
 * KUBEDAG_KEEP_CLUSTER=1 (then `node cluster/cli.ts down --dir=<printed dir>` stops it).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinaries } from '../cluster/binaries.ts';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { readState } from '../cluster/controlplane.ts';
import { importImage } from '../cluster/real-node/cluster.ts';
import { STEP_IMAGE } from '../cluster/real-node/images.ts';
import { buildImage } from '../image/build.ts';
import { ROOT } from '../image/reference.ts';

const namespace = process.env.KUBEDAG_E2E_NAMESPACE ?? 'kubedag-e2e';
const release = 'kubedag';
const say = (line: string): void => void process.stderr.write(`real-node-e2e: ${line}\n`);

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  say(`${command} ${args.join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', env, cwd: ROOT }).status === 0;
}

const built = await buildImage();
const binaries = await ensureBinaries({ log: say });
// The stack layout of cluster/stack.ts (<dir>/cluster), so that cluster-down finds a kept one.
const dir = await mkdtemp(join(tmpdir(), 'kubedag-rn-e2e-'));
const state = await startCluster({ dir: join(dir, 'cluster'), binaries, log: say, realNode: true });
let passed: boolean;
try {
  const started = Date.now();
  await importImage(state.dir, built.archive);
  say(`imported ${built.archive} in ${String(Date.now() - started)} ms`);
  const values = ['operator.replicas=1', `operator.defaultStepImage=${STEP_IMAGE}`, 'image.pullPolicy=Never'].flatMap(
    (v) => ['--set', v],
  );
  // The local cluster makes the step exec ClusterRole the chart makes; the release takes it over.
  run(binaries.kubectl, [
    '--kubeconfig',
    state.kubeconfig,
    'delete',
    'clusterrole',
    'kubedag-step-exec',
    '--ignore-not-found',
  ]);
  const installed = Date.now();
  passed = run(binaries.helm, [
    'upgrade',
    '--install',
    release,
    join(ROOT, 'charts/kubedag'),
    '--kubeconfig',
    state.kubeconfig,
    '--namespace',
    namespace,
    '--create-namespace',
    ...values,
    '--wait',
    '--timeout',
    '5m',
  ]);
  say(`helm install ${passed ? 'ready' : 'failed'} after ${String(Date.now() - installed)} ms`);
  if (passed)
    passed = run(
      'npx',
      [
        'vitest',
        'run',
        '--project',
        'e2e',
        '--reporter=default',
        '--reporter=json',
        '--outputFile.json=.dev/vitest-e2e.json',
      ],
      {
        ...process.env,
        KUBEDAG_E2E_KUBECONFIG: state.kubeconfig,
        KUBEDAG_E2E_NAMESPACE: namespace,
        KUBEDAG_E2E_RELEASE: release,
        KUBEDAG_E2E_STEP_IMAGE: STEP_IMAGE,
      },
    );
} finally {
  if (process.env.KUBEDAG_KEEP_CLUSTER === '1')
    say(`kept the cluster: KUBECONFIG=${state.kubeconfig}; stop it with node cluster/cli.ts down --dir=${dir}`);
  else {
    await stopCluster((await readState(state.dir)) ?? state, say);
    await rm(dir, { recursive: true, force: true });
  }
}
if (!passed) {
  say('the e2e suite failed on the real node');
  process.exit(1);
}
