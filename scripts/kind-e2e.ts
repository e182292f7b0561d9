/**
 * `make kind-e2e`, for machines with Docker and kind: builds the image (make image), loads its
 * archive into a kind cluster (`kind load image-archive`), installs the chart with it (helm
 * upgrade --install, waiting for the rollout) and runs the e2e suite (test/e2e) against that
 * release. KIND_CLUSTER names the cluster (default kubedag-e2e; created when missing and deleted
 * afterwards unless KUBEDAG_KIND_KEEP=1; an existing one is kept). Helm is the machine's, else
 * the control plane's (cluster/binaries.ts, built from Go modules).
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBinaries } from '../cluster/binaries.ts';
import { buildImage } from '../image/build.ts';
import { ROOT } from '../image/reference.ts';

const cluster = process.env.KIND_CLUSTER ?? 'kubedag-e2e';
const namespace = process.env.KUBEDAG_E2E_NAMESPACE ?? 'kubedag-e2e';
const release = 'kubedag';

function fail(message: string): never {
  process.stderr.write(`kind-e2e: ${message}\n`);
  process.exit(1);
}

const tried = (command: string, args: string[]): SpawnSyncReturns<string> =>
  spawnSync(command, args, { encoding: 'utf8' });

/** Each prerequisite, with what to do when it is missing, before anything is built. */
function checkPrerequisites(): void {
  const docker = tried('docker', ['info', '--format', '{{.ServerVersion}}']);
  if (docker.error !== undefined)
    fail('needs Docker: no `docker` command on this machine (kind runs its nodes as Docker containers)');
  if (docker.status !== 0) fail(`needs a running Docker engine: \`docker info\` failed:\n${docker.stderr.trim()}`);
  if (tried('kind', ['version']).error !== undefined)
    fail('needs kind on the PATH (for example `go install sigs.k8s.io/kind@latest`)');
}

const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void => {
  process.stderr.write(`kind-e2e: ${command} ${args.join(' ')}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit', env, cwd: ROOT });
  if (result.status !== 0) fail(`${command} ${args[0] ?? ''} failed`);
};

async function helmBinary(): Promise<string> {
  if (tried('helm', ['version', '--short']).status === 0) return 'helm';
  return (await ensureBinaries()).helm;
}

checkPrerequisites();
const built = await buildImage();
const existing = execFileSync('kind', ['get', 'clusters'], { encoding: 'utf8' }).split('\n').includes(cluster);
if (!existing) run('kind', ['create', 'cluster', '--name', cluster, '--wait', '120s']);
/** Loads the image, installs the chart with it and runs the e2e suite; whether the suite passed. */
async function e2e(): Promise<boolean> {
  const kubeconfig = join(mkdtempSync(join(tmpdir(), 'kubedag-kind-')), 'kubeconfig');
  writeFileSync(kubeconfig, execFileSync('kind', ['get', 'kubeconfig', '--name', cluster], { encoding: 'utf8' }), {
    mode: 0o600,
  });
  run('kind', ['load', 'image-archive', built.archive, '--name', cluster]);
  // kind's storage class gives ReadWriteOnce volumes only, which the chart's directory log
  // store accepts for one operator replica.
  const values = ['operator.replicas=1', 'operator.logs.persistence.accessModes={ReadWriteOnce}'].flatMap((v) => [
    '--set',
    v,
  ]);
  run(await helmBinary(), [
    'upgrade',
    '--install',
    release,
    join(ROOT, 'charts/kubedag'),
    '--kubeconfig',
    kubeconfig,
    '--namespace',
    namespace,
    '--create-namespace',
    ...values,
    '--wait',
    '--timeout',
    '5m',
  ]);
  const result = spawnSync('npx', ['vitest', 'run', '--project', 'e2e'], {
    stdio: 'inherit',
    cwd: ROOT,
    env: {
      ...process.env,
      KUBEDAG_E2E_KUBECONFIG: kubeconfig,
      KUBEDAG_E2E_NAMESPACE: namespace,
      KUBEDAG_E2E_RELEASE: release,
    },
  });
  return result.status === 0;
}

let passed: boolean;
try {
  passed = await e2e();
} finally {
  if (!existing && process.env.KUBEDAG_KIND_KEEP !== '1') run('kind', ['delete', 'cluster', '--name', cluster]);
}
if (!passed) fail('the e2e suite failed');
