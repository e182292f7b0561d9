/**
 * 7-Zip, compiled to WebAssembly (the npm package 7z-wasm), for the formats no JavaScript
 * library reads and writes cleanly: xz and bzip2 (around a tar) both ways, 7z and rar for
 * reading. It runs in a worker thread of the step runner's process, so that a stop can end it,
 * and sees only the folders mounted for one call (Emscripten's NODEFS); each call gets a fresh
 * instance, since a 7-Zip that failed leaves its instance unusable. 7-Zip creates the links an archive holds and refuses those
 * pointing out of its folder ("Dangerous link path"), so no entry lands outside it; the
 * caller still checks every path and link itself before anything reaches the destination.
 */
import { basename, dirname } from 'node:path';
import { Worker } from 'node:worker_threads';
// Types only: the runner's thread loads none of 7-Zip, its worker thread all of it.
import type { SevenZipAnswer, SevenZipReply, SevenZipRequest } from './archive-7zip-thread.ts';
import { sevenZipThreadUrl } from './archive-7zip-thread-url.ts';

/** What one 7-Zip command printed, and its exit code (0 ok, 1 warning, 2 fatal, 7 command line, 8 memory). */
export interface SevenZipRun {
  readonly code: number;
  /** Standard output as bytes (`-so` writes a file there) and as lines. */
  readonly stdout: Buffer;
  readonly out: readonly string[];
  readonly err: readonly string[];
}

/** The process's 7-Zip thread while it lives, and the commands it has not answered yet. */
interface SevenZipThread {
  readonly worker: Worker;
  readonly waiting: Map<number, { resolve: (answer: SevenZipAnswer) => void; reject: (error: Error) => void }>;
}
let thread: SevenZipThread | undefined;
let requests = 0;

/** The 7-Zip thread, started on first use and again after a stop ended it. */
function sevenZipThread(): SevenZipThread {
  if (thread !== undefined) return thread;
  const worker = new Worker(sevenZipThreadUrl());
  const started: SevenZipThread = { worker, waiting: new Map() };
  const end = (error: Error): void => {
    if (thread === started) thread = undefined;
    for (const waiting of started.waiting.values()) waiting.reject(error);
    started.waiting.clear();
  };
  worker.on('message', (reply: SevenZipReply) => {
    started.waiting.get(reply.id)?.resolve(reply.answer);
    started.waiting.delete(reply.id);
    // An idle thread does not keep the process alive.
    if (started.waiting.size === 0) worker.unref();
  });
  worker.on('error', end);
  worker.on('exit', (code) => {
    end(new Error(`7-Zip's thread ended (exit ${String(code)}) before it answered`));
  });
  thread = started;
  return started;
}

/**
 * Runs `7zz ARGS` with the folders of `mounts` (a path inside 7-Zip's file system to a real
 * folder) mounted; paths in ARGS are inside 7-Zip's file system. `-p` always goes with a
 * password (empty when none), so 7-Zip never waits for one on its standard input. It runs in the
 * process's 7-Zip thread (archive-7zip-thread.ts): `signal` ends that thread, and 7-Zip with it,
 * at once, and the call rejects with the signal's reason once the thread is gone (nothing then
 * writes into a scratch folder its caller removes).
 */
export async function sevenZip(
  args: readonly string[],
  mounts: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<SevenZipRun> {
  signal.throwIfAborted();
  const { worker, waiting } = sevenZipThread();
  const request: SevenZipRequest = { id: requests++, job: { args, mounts } };
  const stop = (): void => {
    void worker.terminate();
  };
  signal.addEventListener('abort', stop, { once: true });
  let answer: SevenZipAnswer;
  try {
    answer = await new Promise<SevenZipAnswer>((resolve, reject) => {
      waiting.set(request.id, {
        resolve,
        reject: (error) => {
          reject(signal.aborted ? (signal.reason as Error) : error);
        },
      });
      worker.ref();
      worker.postMessage(request);
    });
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const stdout = Buffer.from(answer.stdout.buffer, answer.stdout.byteOffset, answer.stdout.byteLength);
  return { code: answer.code, stdout, out: stdout.toString('utf8').split(/\r?\n/), err: answer.err };
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
