/**
 * Container logs in the kubelet's CRI file format (`<RFC3339Nano> <stream> F <line>`), one
 * file per container attempt, and the reading side of the kubelet log endpoint: tailLines,
 * sinceSeconds, limitBytes, timestamps and follow.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../core/kube/time.ts';

export interface LogLine {
  readonly time: string;
  readonly stream: 'stdout' | 'stderr';
  readonly text: string;
}

/** Nanosecond-style RFC 3339 time, as the kubelet writes it (milliseconds padded). */
export function criTime(time: Date): string {
  return time.toISOString().replace('Z', '000000Z');
}

/** Splits a child's two streams into timestamped lines in one file. */
export class LogWriter {
  readonly path: string;
  private readonly clock: Clock;
  private readonly file: WriteStream;
  private readonly partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };

  constructor(path: string, clock: Clock) {
    this.path = path;
    this.clock = clock;
    this.file = createWriteStream(path, { flags: 'a' });
  }

  attach(stream: Readable, name: 'stdout' | 'stderr'): void {
    stream.on('data', (chunk: Buffer) => {
      const text = this.partial[name] + chunk.toString('utf8');
      const lines = text.split('\n');
      this.partial[name] = lines.pop() ?? '';
      for (const line of lines) this.file.write(`${criTime(this.clock.now())} ${name} F ${line}\n`);
    });
  }

  /** Writes what is left of unterminated lines and closes the file. */
  async close(): Promise<void> {
    for (const name of ['stdout', 'stderr'] as const) {
      if (this.partial[name] !== '') this.file.write(`${criTime(this.clock.now())} ${name} F ${this.partial[name]}\n`);
      this.partial[name] = '';
    }
    await new Promise<void>((resolve) => this.file.end(resolve));
  }
}

export function parseLogLine(raw: string): LogLine | undefined {
  // `s`: a carriage return is part of the text (HTTP headers end in one), as the kubelet keeps it.
  const match = /^(\S+) (stdout|stderr) [FP] (.*)$/s.exec(raw);
  if (match === null) return undefined;
  return { time: match[1] ?? '', stream: match[2] as 'stdout' | 'stderr', text: match[3] ?? '' };
}

export interface LogQuery {
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  readonly sinceTime?: string;
  readonly limitBytes?: number;
  readonly timestamps?: boolean;
}

/** Applies the kubelet's query options to the lines of one log file; `nowMs` anchors sinceSeconds. Pure. */
export function selectLines(lines: readonly LogLine[], query: LogQuery, nowMs: number): string {
  let selected = [...lines];
  const since =
    query.sinceTime !== undefined
      ? Date.parse(query.sinceTime)
      : query.sinceSeconds !== undefined
        ? nowMs - query.sinceSeconds * 1000
        : undefined;
  if (since !== undefined) selected = selected.filter((line) => Date.parse(line.time) >= since);
  if (query.tailLines !== undefined) selected = query.tailLines <= 0 ? [] : selected.slice(-query.tailLines);
  const text = selected.map((line) => format(line, query.timestamps === true)).join('');
  return query.limitBytes === undefined ? text : Buffer.from(text).subarray(0, query.limitBytes).toString('utf8');
}

function format(line: LogLine, timestamps: boolean): string {
  // The kubelet prints RFC3339Nano; trim our padding back to what it would print.
  return timestamps ? `${trimFraction(line.time)} ${line.text}\n` : `${line.text}\n`;
}

/** `…:20.100000000Z` -> `…:20.1Z`, `…:20.000000000Z` -> `…:20Z`, as Go prints RFC3339Nano. */
function trimFraction(time: string): string {
  return time.replace(/(\.\d*?)0+Z$/, '$1Z').replace(/\.Z$/, 'Z');
}

export async function readLogLines(path: string): Promise<LogLine[]> {
  return (await readLogSnapshot(path)).lines;
}

/** The complete lines of a log file and the byte offset just after them. */
export async function readLogSnapshot(path: string): Promise<{ lines: LogLine[]; size: number }> {
  const buffer = await readFile(path).catch(() => Buffer.alloc(0));
  const end = buffer.lastIndexOf(0x0a) + 1;
  const lines = buffer
    .subarray(0, end)
    .toString('utf8')
    .split('\n')
    .flatMap((raw) => {
      const line = parseLogLine(raw);
      return line === undefined ? [] : [line];
    });
  return { lines, size: end };
}

export interface Follow {
  readonly path: string;
  /** Byte offset to start from (the end of what was already sent). */
  readonly offset: number;
  readonly timestamps: boolean;
  readonly write: (text: string) => void;
  /** The container has ended: stop once everything written has been sent. */
  readonly done: () => boolean;
  /** The client went away. */
  readonly closed: () => boolean;
}

/** Streams a log file as it grows until the container ends or the client goes away. */
export async function follow({ path, offset, timestamps, write, done, closed }: Follow): Promise<void> {
  let position = offset;
  let carry = '';
  for (;;) {
    const finished = done();
    const size = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    if (size > position) {
      const handle = await open(path, 'r');
      try {
        const buffer = Buffer.alloc(size - position);
        await handle.read(buffer, 0, buffer.length, position);
        position = size;
        const lines = (carry + buffer.toString('utf8')).split('\n');
        carry = lines.pop() ?? '';
        const out = lines.flatMap((raw) => {
          const line = parseLogLine(raw);
          return line === undefined ? [] : [format(line, timestamps)];
        });
        if (out.length > 0) write(out.join(''));
      } finally {
        await handle.close();
      }
    }
    if ((finished && size <= position) || closed()) return;
    await sleep(100);
  }
}
