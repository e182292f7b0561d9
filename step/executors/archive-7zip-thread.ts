/**
 * 7-Zip's WebAssembly runs to its end once called (Emscripten's callMain is synchronous), so it
 * runs in a worker thread of its own: the runner's thread stays free to see a stop, and a stop
 * ends the thread, which takes the 7-Zip instance with it. One thread serves a process's 7-Zip
 * commands, one after another (starting one costs far more than a command). This module is that
 * thread's side: it runs each command it is handed (archive-7zip.ts's sevenZip posts them) and
 * answers with what 7-Zip printed. docs/decisions/2026-11-29-dagu-2x-s3-archive-template.md.
 */
import { parentPort } from 'node:worker_threads';
import SevenZipPackage from '7z-wasm';
import { sevenZipWasm } from './archive-7zip-wasm.ts';

// The package is CommonJS whose module.exports is the factory; its types say an ES module's default.
const SevenZip = SevenZipPackage as unknown as typeof SevenZipPackage.default;

export interface SevenZipJob {
  readonly args: readonly string[];
  readonly mounts: Readonly<Record<string, string>>;
}

/** What the thread answers: 7-Zip's exit code, its standard output as bytes, its standard error as lines. */
export interface SevenZipAnswer {
  readonly code: number;
  readonly stdout: Uint8Array;
  readonly err: readonly string[];
}

/** A command handed to the thread, and its answer, matched by `id`. */
export interface SevenZipRequest {
  readonly id: number;
  readonly job: SevenZipJob;
}
export interface SevenZipReply {
  readonly id: number;
  readonly answer: SevenZipAnswer;
}

/** Answers the commands the thread is handed, each with its id (the bytes moved, not copied). */
export function answerSevenZipJobs(): void {
  const port = parentPort;
  port?.on('message', (request: SevenZipRequest) => {
    void runSevenZip(request.job).then((answer) => {
      const reply: SevenZipReply = { id: request.id, answer };
      port.postMessage(reply, [answer.stdout.buffer as ArrayBuffer]);
    });
  });
}

/**
 * `7zz ARGS` with the folders of `mounts` (a path inside 7-Zip's file system to a real folder)
 * mounted (Emscripten's NODEFS), in a fresh instance: a 7-Zip that failed leaves its instance
 * unusable.
 */
async function runSevenZip({ args, mounts }: SevenZipJob): Promise<SevenZipAnswer> {
  const bytes: number[] = [];
  const err: string[] = [];
  const binary = await sevenZipWasm();
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
  return { code, stdout: Uint8Array.from(bytes), err };
}
