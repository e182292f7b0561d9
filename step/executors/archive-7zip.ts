/**
 * 7-Zip, compiled to WebAssembly (the npm package 7z-wasm), for the formats no JavaScript
 * library reads and writes cleanly: xz and bzip2 (around a tar) both ways, 7z and rar for
 * reading. It runs inside the step runner's process and sees only the folders mounted for one
 * call (Emscripten's NODEFS); each call gets a fresh instance, since a 7-Zip that failed
 * leaves its instance unusable. 7-Zip creates the links an archive holds and refuses those
 * pointing out of its folder ("Dangerous link path"), so no entry lands outside it; the
 * caller still checks every path and link itself before anything reaches the destination.
 */
import { basename, dirname } from 'node:path';
import SevenZipPackage from '7z-wasm';
import { sevenZipWasm } from './archive-7zip-wasm.ts';

// The package is CommonJS whose module.exports is the factory; its types say an ES module's default.
const SevenZip = SevenZipPackage as unknown as typeof SevenZipPackage.default;

/** What one 7-Zip command printed, and its exit code (0 ok, 1 warning, 2 fatal, 7 command line, 8 memory). */
export interface SevenZipRun {
  readonly code: number;
  /** Standard output as bytes (`-so` writes a file there) and as lines. */
  readonly stdout: Buffer;
  readonly out: readonly string[];
  readonly err: readonly string[];
}

let wasm: Promise<Uint8Array> | undefined;

/**
 * Runs `7zz ARGS` with the folders of `mounts` (a path inside 7-Zip's file system to a real
 * folder) mounted; paths in ARGS are inside 7-Zip's file system. `-p` always goes with a
 * password (empty when none), so 7-Zip never waits for one on its standard input.
 */
export async function sevenZip(
  args: readonly string[],
  mounts: Readonly<Record<string, string>>,
): Promise<SevenZipRun> {
  wasm ??= sevenZipWasm();
  const bytes: number[] = [];
  const err: string[] = [];
  const binary = await wasm;
  const module = await SevenZip({
    wasmBinary: binary.buffer.slice(binary.byteOffset, binary.byteOffset + binary.byteLength) as ArrayBuffer,
    // Byte by byte: print would decode a file written with -so as text.
    stdout: (byte: number | null) => {
      if (byte !== null) bytes.push(byte & 0xff);
    },
    printErr: (line: string) => err.push(line),
    stdin: () => null as unknown as number,
  });
  for (const [inside, real] of Object.entries(mounts)) {
    module.FS.mkdir(inside);
    module.FS.mount(module.NODEFS, { root: real }, inside);
  }
  let code: number;
  try {
    // callMain returns 7-Zip's exit code (its types say void).
    const callMain = module.callMain.bind(module) as unknown as (argv: string[]) => number | undefined;
    code = callMain([...args, '-bsp0', '-y']) ?? 0;
  } catch (error) {
    // An Emscripten exit is thrown as an ExitStatus; anything else is 7-Zip aborting.
    const status = (error as { status?: unknown }).status;
    code = typeof status === 'number' ? status : 2;
    if (typeof status !== 'number') err.push(String(error));
  }
  const stdout = Buffer.from(bytes);
  return { code, stdout, out: stdout.toString('utf8').split(/\r?\n/), err };
}

/** The message of a failed 7-Zip run: its ERROR lines, else what it printed last. */
export function sevenZipError(run: SevenZipRun): string {
  const lines = [...run.err, ...run.out].map((line) => line.trim()).filter((line) => line !== '');
  const errors = lines.filter((line) => /^ERROR:|Wrong password|Is not archive|Can not open/i.test(line));
  return (
    (errors.length > 0 ? errors : lines.slice(-1)).join('; ').replace(/^ERROR:\s*/, '') || `7-Zip exit ${run.code}`
  );
}

/** One entry of `7zz l -slt`: its fields as 7-Zip names them (`Path`, `Size`, `Modified`, `Attributes`, ...). */
export type SevenZipRecord = Readonly<Record<string, string>>;

/** `7zz l -slt -ba` output as records, one per entry, in the archive's order. Pure. */
export function parseListing(lines: readonly string[]): SevenZipRecord[] {
  const records: Record<string, string>[] = [];
  let current: Record<string, string> | undefined;
  for (const line of lines) {
    const match = /^([A-Za-z][A-Za-z ]*?) = (.*)$/.exec(line);
    if (match === null) {
      current = undefined;
      continue;
    }
    const [, key = '', value = ''] = match;
    if (key === 'Path' || current === undefined) {
      current = {};
      records.push(current);
    }
    current[key] = value;
  }
  return records.filter((record) => record.Path !== undefined);
}

export interface SevenZipEntry {
  readonly name: string;
  readonly kind: 'file' | 'dir' | 'symlink';
  readonly size: number;
  readonly mode: number;
  readonly mtime: Date;
}

const PERMISSION = /([-dlcbps])([-r][-w][-xsS][-r][-w][-xsS][-r][-w][-xtT])$/;

function permissionBits(text: string): number {
  let bits = 0;
  for (const [i, char] of [...text].entries()) if (char !== '-' && char !== 'S' && char !== 'T') bits |= 1 << (8 - i);
  return bits;
}

/** 7-Zip's `Modified` (`2026-11-29 16:37:17.7610000`), UTC as the WebAssembly has no time zone. */
function timeOf(text: string): Date {
  const stamp = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,3}))?/.exec(text);
  if (stamp === null) return new Date(0);
  const [y, mo, d, h, mi, s] = stamp.slice(1, 7).map(Number);
  const ms = Number((stamp[7] ?? '0').padEnd(3, '0'));
  return new Date(Date.UTC(y ?? 1970, (mo ?? 1) - 1, d, h, mi, s, ms));
}

/**
 * The kind and permission bits: from the Unix mode 7-Zip shows after the Windows attributes
 * (`A -rw-r--r--`); an archive made on Windows has none, and gets 0644 for a file (0444
 * read-only) and 0755 for a folder, as Go's rar reader gives.
 */
function kindAndMode(attributes: string, folder: boolean): { kind: SevenZipEntry['kind']; mode: number } {
  const unix = PERMISSION.exec(attributes);
  const windows = attributes.split(' ')[0] ?? '';
  if (unix !== null) {
    const kind = unix[1] === 'l' ? 'symlink' : folder || unix[1] === 'd' ? 'dir' : 'file';
    return { kind, mode: permissionBits(unix[2] ?? '') };
  }
  if (folder || windows.includes('D')) return { kind: 'dir', mode: 0o755 };
  return { kind: 'file', mode: windows.includes('R') ? 0o444 : 0o644 };
}

/** A listing record as an entry. Pure. */
export function entryOf(record: SevenZipRecord): SevenZipEntry {
  return {
    name: (record.Path ?? '').replaceAll('\\', '/'),
    ...kindAndMode(record.Attributes ?? '', record.Folder === '+'),
    size: Number(record.Size ?? 0) || 0,
    mtime: timeOf(record.Modified ?? ''),
  };
}

/** Where a real file is inside 7-Zip's file system: its folder mounted at `/at`. */
export function mountOf(path: string, at: string): { mounts: Record<string, string>; inside: string } {
  return { mounts: { [at]: dirname(path) }, inside: `${at}/${basename(path)}` };
}
