/**
 * Layers as deterministic tar archives: entries sorted by path, every mtime the build's
 * SOURCE_DATE_EPOCH, numeric owners without names, no access or change times, gzip without a
 * name or time in its header. The same entries give the same bytes, and so the same digests.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

interface Owned {
  /** Relative to the root, no leading or trailing slash. */
  readonly path: string;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

export type LayerEntry =
  | (Owned & { readonly type: 'directory' })
  | (Owned & { readonly type: 'symlink'; readonly linkname: string })
  | (Owned & { readonly type: 'file'; readonly content: Buffer })
  /** A file copied from disk when the layer is written, so large files stay out of memory. */
  | (Owned & { readonly type: 'file'; readonly source: string; readonly size: number });

export interface Blob {
  /** sha256:<hex> of the bytes as stored (compressed for a layer). */
  readonly digest: string;
  readonly size: number;
}

export interface Layer extends Blob {
  /** sha256:<hex> of the uncompressed tar: the config's diff_id. */
  readonly diffId: string;
  readonly file: string;
}

export const directory = (path: string, mode = 0o755, uid = 0, gid = 0): LayerEntry => ({
  path,
  type: 'directory',
  mode,
  uid,
  gid,
});
export const file = (path: string, content: Buffer | string, mode = 0o644): LayerEntry => ({
  path,
  type: 'file',
  mode,
  uid: 0,
  gid: 0,
  content: Buffer.from(content),
});
export const symlink = (path: string, linkname: string): LayerEntry => ({
  path,
  type: 'symlink',
  mode: 0o777,
  uid: 0,
  gid: 0,
  linkname,
});

/** Paths compare by their UTF-8 bytes, so the order never depends on the locale. */
const byPath = (a: { path: string }, b: { path: string }): number =>
  Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));

/**
 * The entries sorted, with every missing parent directory added (0755, root's): a layer must
 * describe the directories it writes into. Two entries for one path are an error unless both
 * are the same directory.
 */
export function normalizeEntries(entries: readonly LayerEntry[]): LayerEntry[] {
  const byName = new Map<string, LayerEntry>();
  for (const entry of entries) {
    checkPath(entry.path);
    const earlier = byName.get(entry.path);
    if (earlier !== undefined && !(earlier.type === 'directory' && entry.type === 'directory'))
      throw new Error(`two entries for ${entry.path}`);
    if (earlier === undefined) byName.set(entry.path, entry);
    const parts = entry.path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      if (!byName.has(parent)) byName.set(parent, directory(parent));
    }
  }
  for (const entry of byName.values()) {
    const parent = entry.path.split('/').slice(0, -1).join('/');
    if (parent !== '' && byName.get(parent)?.type !== 'directory')
      throw new Error(`${entry.path} lies under ${parent}, which is no directory`);
  }
  return [...byName.values()].sort(byPath);
}

function checkPath(path: string): void {
  if (path === '' || path.startsWith('/') || path.endsWith('/') || path.split('/').includes('..'))
    throw new Error(`layer path ${JSON.stringify(path)} is not a clean relative path`);
}

/** Feeds bytes through to a hash on their way. */
function hashing(hash: ReturnType<typeof createHash>, count: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      hash.update(chunk);
      count.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

/** Adds one entry with its content in hand to the pack. */
function packed(pack: tar.Pack, header: Partial<tar.Header> & { name: string }, content?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error | null): void => {
      if (error) reject(error);
      else resolve();
    };
    if (content === undefined) pack.entry(header, done);
    else pack.entry(header, content, done);
  });
}

async function packEntries(pack: tar.Pack, entries: readonly LayerEntry[], mtime: Date): Promise<void> {
  for (const entry of entries) {
    const header = {
      name: entry.type === 'directory' ? `${entry.path}/` : entry.path,
      mode: entry.mode,
      uid: entry.uid,
      gid: entry.gid,
      uname: '',
      gname: '',
      mtime,
    };
    if (entry.type === 'directory') await packed(pack, { ...header, type: 'directory' });
    else if (entry.type === 'symlink') await packed(pack, { ...header, type: 'symlink', linkname: entry.linkname });
    else if ('content' in entry) await packed(pack, { ...header, type: 'file' }, entry.content);
    else await pipeline(createReadStream(entry.source), pack.entry({ ...header, type: 'file', size: entry.size }));
  }
  pack.finalize();
}

/** Writes the entries as a gzip-compressed layer into `dir`, named by its digest. */
export async function writeLayer(entries: readonly LayerEntry[], epoch: number, dir: string): Promise<Layer> {
  const pack = tar.pack();
  const diff = createHash('sha256');
  const stored = createHash('sha256');
  const raw = { bytes: 0 };
  const compressed = { bytes: 0 };
  const scratch = join(dir, `.layer-${String(process.pid)}-${String(Math.random()).slice(2)}`);
  await Promise.all([
    packEntries(pack, normalizeEntries(entries), new Date(epoch * 1000)),
    pipeline(
      pack,
      hashing(diff, raw),
      createGzip({ level: 6 }),
      hashing(stored, compressed),
      createWriteStream(scratch),
    ),
  ]);
  const digest = stored.digest('hex');
  const path = join(dir, digest);
  await rename(scratch, path);
  return { digest: `sha256:${digest}`, diffId: `sha256:${diff.digest('hex')}`, size: compressed.bytes, file: path };
}

/** An uncompressed tar of the entries (the OCI archive), written to `path`. */
export async function writeTar(entries: readonly LayerEntry[], epoch: number, path: string): Promise<void> {
  const pack = tar.pack();
  await Promise.all([
    packEntries(pack, normalizeEntries(entries), new Date(epoch * 1000)),
    pipeline(pack, new PassThrough(), createWriteStream(path)),
  ]);
}
