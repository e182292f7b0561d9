/**
 * Kubedag's step runner (`kubedag-step`, folder step/) for the local cluster: bundled with
 * rolldown into one ES module (jq's WebAssembly is embedded in jq-wasm's own module), next to a
 * `bin/kubedag-step` launcher that runs it with a Node.js of this machine. The node agent puts
 * that bin directory on the PATH it gives containers, as an image would have the runner on its
 * PATH.
 *
 * Step Pods run as uid 1000 by default and /root is not theirs to read, so the runner and the
 * Node.js it needs live in a world-readable cache outside the repository:
 * `/var/cache/kubedag/step-runner` as root (without root the agent runs containers as its own
 * user, so the user's cache does), or `$KUBEDAG_STEP_RUNNER_CACHE`. Each build has a directory
 * named by a hash of what it is built from (sources, lock file, Node.js version), so a stale
 * runner is never used and an unchanged one is not built again.
 */
import { createHash } from 'node:crypto';
import {
  chmod,
  copyFile,
  link,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { resolveSettings, setting } from '../core/settings.ts';
import { bundleStepRunner } from '../build/step-bundle.ts';
import { cacheDir } from '../build/cache-dir.ts';

const root = join(import.meta.dirname, '..');

/** The folders whose sources the runner is bundled from. */
const SOURCES = ['step', 'core'];

export interface StepRunner {
  /** Holds `kubedag-step`: the directory to put on containers' PATH. */
  readonly bin: string;
  /** False when an up-to-date build was already there. */
  readonly built: boolean;
}

/** Declared as a setting (core/settings.ts) so that `node cluster/cli.ts --help` lists it. */
export const STEP_RUNNER_SETTINGS = {
  stepRunnerCache: setting<string | undefined>({
    variables: ['KUBEDAG_STEP_RUNNER_CACHE'],
    value: 'DIR',
    default: undefined,
    defaultText: '/var/cache/kubedag/step-runner as root, else step-runner in the cache directory',
    description:
      "Where kubedag-step is built for the node agents to put on containers' PATH; step Pods must be able to read it.",
    read: (text) => text,
  }),
};

export function defaultRunnerCache(env: NodeJS.ProcessEnv = process.env): string {
  const given = resolveSettings(STEP_RUNNER_SETTINGS, {}, env).stepRunnerCache;
  if (given !== undefined) return given;
  if (process.getuid?.() === 0) return '/var/cache/kubedag/step-runner';
  return join(cacheDir(env), 'step-runner');
}

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/** What a build is made from; equal inputs give the same directory. */
export async function runnerHash(): Promise<string> {
  const hash = createHash('sha256').update(process.version);
  const files = [
    ...(await Promise.all(SOURCES.map((s) => sourceFiles(join(root, s))))).flat(),
    join(root, 'package-lock.json'),
    join(root, 'cluster/step-runner.ts'),
    join(root, 'build/step-bundle.ts'),
  ];
  for (const file of files)
    hash
      .update(relative(root, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * Node.js for the runner, readable by any user: a hard link to this process's own binary
 * (which a link makes reachable without reading the directories above it), else a copy.
 */
async function installNode(cache: string): Promise<string> {
  const target = join(cache, `node-${process.version}`, 'node');
  if (await exists(target)) return target;
  await mkdir(dirname(target), { recursive: true, mode: 0o755 });
  const temporary = `${target}.${String(process.pid)}`;
  await link(process.execPath, temporary).catch(() => copyFile(process.execPath, temporary));
  await chmod(temporary, 0o755);
  await rename(temporary, target);
  return target;
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** Builds and installs the runner unless an up-to-date build is in the cache. */
export async function ensureStepRunner(
  cache = defaultRunnerCache(),
  log: (line: string) => void = () => undefined,
): Promise<StepRunner> {
  await mkdir(cache, { recursive: true, mode: 0o755 });
  await chmod(cache, 0o755);
  const dir = join(cache, await runnerHash());
  const bin = join(dir, 'bin');
  if (await exists(join(bin, 'kubedag-step'))) return { bin, built: false };
  const node = await installNode(cache);
  // Built aside and renamed into place: a concurrent start sees a whole build or none.
  const work = await mkdtemp(join(cache, '.build-'));
  try {
    const bundles = await bundleStepRunner(join(work, 'kubedag-step.mjs'));
    await mkdir(join(work, 'bin'));
    const launcher = `#!/bin/sh\n# kubedag-step, the Kubedag step runner, on this machine's Node.js.\nexec '${node}' '${join(dir, 'kubedag-step.mjs')}' "$@"\n`;
    await writeFile(join(work, 'bin', 'kubedag-step'), launcher, { mode: 0o755 });
    await chmod(work, 0o755);
    await chmod(join(work, 'bin'), 0o755);
    for (const file of bundles) await chmod(file, 0o644);
    await rename(work, dir).catch(async (error: unknown) => {
      if (!(await exists(join(bin, 'kubedag-step')))) throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  log(`step runner built into ${dir}`);
  return { bin, built: true };
}
