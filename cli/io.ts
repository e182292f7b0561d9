import { open } from 'node:fs/promises';
import { MAX_FILE_BYTES } from '../core/dag/index.ts';

/** What the CLI touches outside itself, injected so that tests run it in-process. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Reads a file as UTF-8; an oversized file comes back truncated just past the limit. */
  readonly readFile: (path: string) => Promise<string>;
}

/**
 * Reads at most one byte more than a DAG file may hold: enough for the loader to report the
 * size problem, without pulling a huge file into memory.
 */
export async function readBounded(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_FILE_BYTES + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0 || filled + bytesRead === buffer.length) {
        filled += bytesRead;
        break;
      }
      filled += bytesRead;
    }
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    await handle.close();
  }
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readFile: readBounded,
  };
}
