/**
 * The layers above Debian: the pinned Node.js, the production npm dependencies, and Kubedag
 * itself (the CLI's sources, the operator, API server and step runner bundles, the built web
 * UI). Files are taken from disk as they are; only their modes are normalised
 * (0755 when any execute bit is set, else 0644), so a umask or a checkout's modes change nothing.
 */
import { createHash } from 'node:crypto';
import {
  access,
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  utimes,
} from 'node:fs/promises';
import { join, relative } from 'node:path';
import { cacheDir } from '../build/cache-dir.ts';
import { run } from './exec.ts';
import { ROOT } from './reference.ts';
import { file, type LayerEntry } from './tar.ts';

/** Where Kubedag lives in the image: the chart's working directory, relative paths and all. */
export const APP = 'app';

/** Every file and directory under `dir`, as entries under `prefix`; `include` filters by the path relative to `dir`. */
export async function treeEntries(
  dir: string,
  prefix: string,
  include: (path: string) => boolean = () => true,
): Promise<LayerEntry[]> {
  const entries: LayerEntry[] = [];
  const walk = async (path: string): Promise<void> => {
    for (const name of (await readdir(path)).sort()) {
      const full = join(path, name);
      const rel = relative(dir, full);
      if (!include(rel)) continue;
      const target = `${prefix}/${rel}`;
      const stat = await lstat(full);
      if (stat.isSymbolicLink())
        entries.push({ path: target, type: 'symlink', mode: 0o777, uid: 0, gid: 0, linkname: await readlink(full) });
      else if (stat.isDirectory()) {
        entries.push({ path: target, type: 'directory', mode: 0o755, uid: 0, gid: 0 });
        await walk(full);
      } else if (stat.isFile())
        entries.push({
          path: target,
          type: 'file',
          mode: stat.mode & 0o111 ? 0o755 : 0o644,
          uid: 0,
          gid: 0,
          source: full,
          size: stat.size,
        });
      else throw new Error(`${full} is neither a file, a directory nor a symbolic link`);
    }
  };
  await walk(dir);
  return entries;
}

/** The Node.js layer: the binary of the npm package node-linux-<arch> (scripts/ensure-node.sh --pinned) and its licence. */
export async function nodeEntries(nodeHome: string): Promise<LayerEntry[]> {
  const binary = join(nodeHome, 'bin/node');
  const stat = await lstat(binary);
  return [
    { path: 'usr/local/bin/node', type: 'file', mode: 0o755, uid: 0, gid: 0, source: binary, size: stat.size },
    file('usr/local/share/doc/node/LICENSE', await readFile(join(nodeHome, 'LICENSE'))),
  ];
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The production dependencies as `npm ci --omit=dev --ignore-scripts` installs them (no
 * install scripts: ssh2 then uses its JavaScript crypto, as in every Kubedag process), cached
 * per package-lock.json under ~/.cache/kubedag/image. `fresh` installs anew into a scratch
 * folder and leaves the cache alone. Returns the folder holding node_modules.
 */
export async function productionModules(
  log: (line: string) => void,
  fresh = false,
): Promise<{ dir: string; dispose: () => Promise<void> }> {
  const lockText = await readFile(join(ROOT, 'package-lock.json'));
  const key = createHash('sha256').update(lockText).digest('hex').slice(0, 16);
  const base = join(cacheDir(), 'image', 'node_modules');
  const cached = join(base, key);
  if (!fresh && (await exists(join(cached, 'node_modules')))) {
    const now = new Date();
    await utimes(cached, now, now);
    return { dir: cached, dispose: () => Promise.resolve() };
  }
  await mkdir(base, { recursive: true });
  const scratch = await mkdtemp(join(base, '.install-'));
  log(`installing the production npm dependencies (npm ci --omit=dev) into ${fresh ? scratch : cached}`);
  await cp(join(ROOT, 'package.json'), join(scratch, 'package.json'));
  await cp(join(ROOT, 'package-lock.json'), join(scratch, 'package-lock.json'));
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: scratch,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (fresh) return { dir: scratch, dispose: () => rm(scratch, { recursive: true, force: true }) };
  // Renamed into place whole: a cache entry is never half installed.
  await rename(scratch, cached).catch(async (error: unknown) => {
    await rm(scratch, { recursive: true, force: true });
    if (!(await exists(join(cached, 'node_modules')))) throw error;
  });
  await pruneInstalls(base, KEPT_INSTALLS);
  return { dir: cached, dispose: () => Promise.resolve() };
}

/** Installs kept in the cache: a few lockfiles' worth (branches, worktrees), about 200 MB each. */
const KEPT_INSTALLS = 3;

/** Removes all but the `keep` most recently used installs. */
async function pruneInstalls(base: string, keep: number): Promise<void> {
  const names = (await readdir(base)).filter((name) => !name.startsWith('.'));
  const used = await Promise.all(names.map(async (name) => ({ name, time: (await stat(join(base, name))).mtimeMs })));
  for (const { name } of used.sort((a, b) => b.time - a.time).slice(keep))
    await rm(join(base, name), { recursive: true, force: true });
}

/**
 * npm's own bookkeeping (the hidden lockfile records the npm version that wrote it), type
 * declarations and source maps are no part of the image: Node.js reads none of them when it
 * runs Kubedag (no --enable-source-maps), and they are nearly half of node_modules' bytes.
 */
export const moduleIncluded = (path: string): boolean =>
  path !== 'node_modules/.package-lock.json' && !/\.d\.[cm]?ts$|\.map$/.test(path);

/** Sources the image runs with type stripping: everything but tests. */
export const sourceIncluded = (path: string): boolean =>
  !path.endsWith('.test.ts') && !/(^|\/)__snapshots__(\/|$)/.test(path);

/** Wrappers that put Kubedag's commands on the PATH of every container of the image. */
export function commandEntries(): LayerEntry[] {
  const wrapper = (script: string): string => `#!/bin/sh\nexec node ${script} "$@"\n`;
  return [
    // The CLI from its sources (type stripping): `kubedag validate`, `kubedag render`.
    file('usr/local/bin/kubedag', wrapper(`/${APP}/cli/main.ts`), 0o755),
    // The step runner of http, jq, mail and ssh steps: the operator's runner Pods call it by name.
    file('usr/local/bin/kubedag-step', wrapper(`/${APP}/dist/kubedag-step.mjs`), 0o755),
  ];
}

/** Kubedag's own files, from the repository and the build's staging folder (bundles). */
export async function appEntries(staging: string, uiDir: string): Promise<LayerEntry[]> {
  if (!(await exists(join(uiDir, 'index.html'))))
    throw new Error(`no web UI in ${uiDir}: run \`make ui\` first (make image does)`);
  const fromRoot = async (name: string): Promise<LayerEntry[]> =>
    treeEntries(join(ROOT, name), `${APP}/${name}`, sourceIncluded);
  return [
    ...commandEntries(),
    file(`${APP}/package.json`, await readFile(join(ROOT, 'package.json'))),
    file(`${APP}/package-lock.json`, await readFile(join(ROOT, 'package-lock.json'))),
    ...(await fromRoot('core')),
    ...(await fromRoot('cli')),
    ...(await treeEntries(staging, `${APP}/dist`)),
    ...(await treeEntries(uiDir, `${APP}/dist/ui`)),
  ];
}
