/**
 * The pinned Debian packages (image/debian.lock.json): fetched with the machine's apt into a
 * per-user cache keyed by their SHA-256, checked against the lock, and read with dpkg-deb
 * without installing anything. Debian's mirror keeps only the current version of a package,
 * so a pin outlives its version there only in the cache; then the build fails and says to run
 * `make image-lock`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import tar from 'tar-stream';
import { cacheDir } from '../build/cache-dir.ts';
import { parseControl, type Control } from './debian-set.ts';
import { run } from './exec.ts';
import { ROOT } from './reference.ts';
import type { LayerEntry } from './tar.ts';

export const LOCK_FILE = join(ROOT, 'image/debian.lock.json');

export interface LockedPackage {
  readonly name: string;
  readonly version: string;
  readonly architecture: string;
  readonly sha256: string;
  readonly size: number;
}

export interface DebianLock {
  /** os-release ID and VERSION_ID of the machine whose apt resolved the lock: the purl's distro. */
  readonly distro: string;
  readonly codename: string;
  readonly architecture: string;
  readonly packages: readonly LockedPackage[];
}

export async function readLock(): Promise<DebianLock> {
  return JSON.parse(await readFile(LOCK_FILE, 'utf8')) as DebianLock;
}

export interface Deb {
  readonly locked: LockedPackage;
  readonly control: Control;
  /** The files the package installs, as dpkg would unpack them. */
  readonly entries: readonly LayerEntry[];
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

const sha256 = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

/** apt-get as root needs its download sandbox user lifted to write into a root-owned cache. */
const aptOptions = (): string[] => (process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : []);

async function download(pkg: LockedPackage, into: string): Promise<void> {
  const spec = `${pkg.name}=${pkg.version}`;
  try {
    await run('apt-get', [...aptOptions(), 'download', '-q', spec], { cwd: into });
  } catch {
    // The machine's package lists may predate the pinned version: refresh them once (as root).
    if (process.getuid?.() === 0) await run('apt-get', ['update', '-qq']).catch(() => undefined);
    try {
      await run('apt-get', [...aptOptions(), 'download', '-q', spec], { cwd: into });
    } catch (error) {
      throw new Error(
        `this machine's apt does not serve ${spec} (${pkg.architecture}), pinned in image/debian.lock.json. Debian's mirror keeps only each package's current version, so a security or point release retires the pin: run \`make image-lock\` to pin the mirror's current versions and commit the lock.\n${(error as Error).message}`,
        { cause: error },
      );
    }
  }
}

/** The path of each pinned .deb in the cache, downloading the missing ones; every file is checked against its pinned SHA-256. */
export async function ensureDebs(
  lock: DebianLock,
  log: (line: string) => void,
  dir = join(cacheDir(), 'image', 'debs'),
): Promise<Map<string, string>> {
  await mkdir(dir, { recursive: true });
  const paths = new Map<string, string>();
  const missing = [];
  for (const pkg of lock.packages) {
    const path = join(dir, `${pkg.name}_${pkg.sha256}.deb`);
    paths.set(pkg.name, path);
    if (!(await exists(path))) missing.push(pkg);
  }
  if (missing.length === 0) return paths;
  log(`downloading ${String(missing.length)} Debian packages with apt-get into ${dir}`);
  const scratch = await mkdtemp(join(dir, '.download-'));
  try {
    for (const pkg of missing) {
      await download(pkg, scratch);
      const [file] = (await readdir(scratch)).filter((name) => name.endsWith('.deb'));
      if (file === undefined) throw new Error(`apt-get download ${pkg.name}=${pkg.version} wrote no .deb`);
      const actual = await sha256(join(scratch, file));
      if (actual !== pkg.sha256)
        throw new Error(
          `apt served ${file} with SHA-256 ${actual}; image/debian.lock.json pins ${pkg.sha256} (another distribution or architecture than the lock's ${lock.distro} ${lock.architecture}?)`,
        );
      // A rename is atomic: a file under its final name is always complete and checked.
      await rename(join(scratch, file), paths.get(pkg.name) ?? '');
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return paths;
}

/** One tar entry as a layer entry; a hard link becomes a copy of the file it links to. */
function layerEntry(
  header: tar.Header,
  content: Buffer,
  earlier: ReadonlyMap<string, LayerEntry>,
): LayerEntry | undefined {
  const path = header.name.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  if (path === '') return undefined;
  const owner = { mode: header.mode & 0o7777, uid: header.uid, gid: header.gid };
  switch (header.type) {
    case 'directory':
      return { path, type: 'directory', ...owner };
    case 'symlink':
      return { path, type: 'symlink', ...owner, linkname: header.linkname };
    case 'file':
      return { path, type: 'file', ...owner, content };
    case 'link': {
      const target = earlier.get(header.linkname.replace(/^\.?\/+/, ''));
      if (target?.type !== 'file') throw new Error(`hard link ${path} to ${header.linkname}, which is no earlier file`);
      return { ...target, path };
    }
    default:
      throw new Error(`${path}: a ${header.type} entry, which the image does not take`);
  }
}

/** The entries of a tar stream, contents in memory. */
async function tarEntries(stream: NodeJS.ReadableStream): Promise<LayerEntry[]> {
  const byPath = new Map<string, LayerEntry>();
  const extract = tar.extract();
  stream.pipe(extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const made = layerEntry(entry.header, Buffer.concat(chunks), byPath);
    if (made !== undefined) byPath.set(made.path, made);
  }
  return [...byPath.values()];
}

/** A .deb's control fields and files, read with dpkg-deb. */
export async function readDeb(locked: LockedPackage, path: string): Promise<Deb> {
  const [control] = parseControl((await run('dpkg-deb', ['--field', path])).stdout.toString());
  if (control?.Package !== locked.name || control.Version !== locked.version)
    throw new Error(
      `${path} is ${control?.Package ?? '?'} ${control?.Version ?? '?'}, not the pinned ${locked.name} ${locked.version}`,
    );
  const child = spawn('dpkg-deb', ['--fsys-tarfile', path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`dpkg-deb --fsys-tarfile ${path} exited with ${String(code)}`));
    });
  });
  const entries = await tarEntries(child.stdout);
  await exited;
  return { locked, control, entries };
}
