/**
 * The control-plane binaries, built from the Go modules of Kubernetes, etcd and helm (pinned in
 * versions.json; the tools modules under tools/ hold their go.mod and go.sum) into a per-user
 * cache keyed by version. Built once per machine; later calls find them and return at once.
 */
import { spawn } from 'node:child_process';
import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../build/cache-dir.ts';

export interface Versions {
  readonly kubernetes: string;
  readonly etcd: string;
  readonly helm: string;
  /** The real node's container runtime (cluster/real-node/binaries.ts). */
  readonly containerd: string;
}

export interface Binaries {
  readonly etcd: string;
  readonly kubeApiserver: string;
  readonly kubeControllerManager: string;
  readonly kubeScheduler: string;
  readonly kubectl: string;
  readonly helm: string;
}

const here = import.meta.dirname;

export async function readVersions(): Promise<Versions> {
  return JSON.parse(await readFile(join(here, 'versions.json'), 'utf8')) as Versions;
}

export interface Group {
  readonly name: keyof Versions;
  /** The cache folder's name before `-<version>`; the group's name when absent. */
  readonly cache?: string;
  /** Folder under tools/ with the go.mod that pins this group. */
  readonly module: string;
  /** Binary name -> Go package. */
  readonly packages: Readonly<Record<string, string>>;
  readonly ldflags: (version: string) => string[];
}

/** What `make` in the Kubernetes repository stamps in, so that /version and kubectl report it. */
export function kubernetesLdflags(version: string): string[] {
  const [major = '', minor = ''] = version.replace(/^v/, '').split('.');
  return ['component-base/version', 'client-go/pkg/version'].flatMap((pkg) => [
    `-X k8s.io/${pkg}.gitVersion=${version}`,
    `-X k8s.io/${pkg}.gitMajor=${major}`,
    `-X k8s.io/${pkg}.gitMinor=${minor}`,
    `-X k8s.io/${pkg}.gitTreeState=clean`,
  ]);
}

const GROUPS: readonly Group[] = [
  {
    name: 'etcd',
    module: 'etcd',
    packages: { etcd: 'go.etcd.io/etcd/server/v3' },
    ldflags: () => [],
  },
  {
    name: 'kubernetes',
    module: 'kubernetes',
    packages: {
      'kube-apiserver': 'k8s.io/kubernetes/cmd/kube-apiserver',
      'kube-controller-manager': 'k8s.io/kubernetes/cmd/kube-controller-manager',
      'kube-scheduler': 'k8s.io/kubernetes/cmd/kube-scheduler',
      kubectl: 'k8s.io/kubernetes/cmd/kubectl',
    },
    ldflags: kubernetesLdflags,
  },
  {
    name: 'helm',
    module: 'helm',
    packages: { helm: 'helm.sh/helm/v4/cmd/helm' },
    ldflags: (version) => [`-X helm.sh/helm/v4/internal/version.version=${version}`],
  },
];

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

export interface BuildOptions {
  readonly log?: (line: string) => void;
  readonly env?: NodeJS.ProcessEnv;
}

/** Every group's binaries (name -> path), one group after another: each build takes both cores. */
export async function ensureGroups(
  groups: readonly Group[],
  options: BuildOptions = {},
): Promise<Record<string, string>> {
  const paths: Record<string, string> = {};
  for (const group of groups) Object.assign(paths, await ensureGroup(group, options));
  return paths;
}

/** Returns the binaries, building any group that is missing from the cache. */
export async function ensureBinaries(options: BuildOptions = {}): Promise<Binaries> {
  const paths = await ensureGroups(GROUPS, options);
  return {
    etcd: paths.etcd ?? '',
    kubeApiserver: paths['kube-apiserver'] ?? '',
    kubeControllerManager: paths['kube-controller-manager'] ?? '',
    kubeScheduler: paths['kube-scheduler'] ?? '',
    kubectl: paths.kubectl ?? '',
    helm: paths.helm ?? '',
  };
}

/** One group's binaries (name -> path), built into `<cache>/bin/<name>-<version>` when any is missing. */
export async function ensureGroup(group: Group, options: BuildOptions = {}): Promise<Record<string, string>> {
  const versions = await readVersions();
  const env = options.env ?? process.env;
  const log = options.log ?? ((line: string): void => void process.stderr.write(`${line}\n`));
  const dir = join(cacheDir(env), 'bin', `${group.cache ?? group.name}-${versions[group.name]}`);
  const names = Object.keys(group.packages);
  const missing = (await Promise.all(names.map((name) => exists(join(dir, name))))).some((present) => !present);
  if (missing) await build(group, versions[group.name], dir, env, log);
  return Object.fromEntries(names.map((name) => [name, join(dir, name)]));
}

async function build(
  group: Group,
  version: string,
  dir: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  const names = Object.keys(group.packages);
  log(
    `building ${group.cache ?? group.name} ${version} (${names.join(', ')}) from Go modules into ${dir}; the first build takes minutes`,
  );
  const started = Date.now();
  await mkdir(join(dir, '..'), { recursive: true });
  // Build into a scratch folder and rename it into place: a half-built group is never "found".
  const scratch = await mkdtemp(join(dir, '..', `.${group.cache ?? group.name}-build-`));
  try {
    const flags = ['build', '-trimpath', `-ldflags=-s -w ${group.ldflags(version).join(' ')}`];
    const goEnv = { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly' };
    const cwd = join(here, 'tools', group.module);
    const entries = Object.entries(group.packages);
    // One invocation links several binaries into a folder, named after each package's last
    // path element; a package like go.etcd.io/etcd/server/v3 needs its output named instead.
    if (entries.every(([name, pkg]) => pkg.endsWith(`/${name}`)))
      await run('go', [...flags, '-o', `${scratch}/`, ...entries.map(([, pkg]) => pkg)], cwd, goEnv, log);
    else
      for (const [name, pkg] of entries) await run('go', [...flags, '-o', join(scratch, name), pkg], cwd, goEnv, log);
    await rm(dir, { recursive: true, force: true });
    await rename(scratch, dir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  log(`built ${group.cache ?? group.name} ${version} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output += chunk.toString();
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `${command} not found: Go is needed to build the local control plane (see README)`
            : error.message,
        ),
      );
    });
    child.on('close', (code) => {
      if (code === 0) resolve();
      else {
        log(output);
        reject(new Error(`${command} ${args.join(' ')} failed with exit code ${String(code)}`));
      }
    });
  });
}
