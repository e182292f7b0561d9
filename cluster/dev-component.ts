/**
 * One program `make dev` runs (the operator or the API server): `node <script>` in a process
 * group of its own, its whole output appended to `<dir>/<name>.log` and, unless quiet, the
 * console. Once the stack is up, an end that nobody asked for is told in one line and the
 * program is started again after the wait dev-restart.ts decides, as a Deployment's Pod would
 * be; before that, an end means the stack did not come up, and the caller stops it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { endingReport, lastMeaningfulLine } from './dev-report.ts';
import { nextRestart } from './dev-restart.ts';

const root = join(import.meta.dirname, '..');

/** The last 16 kB of a log: enough for its last lines, whatever its size. */
export async function readTail(path: string): Promise<string> {
  const file = await open(path, 'r').catch(() => undefined);
  if (file === undefined) return '';
  try {
    const { size } = await file.stat();
    const length = Math.min(size, 16_384);
    const buffer = Buffer.alloc(length);
    await file.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    await file.close();
  }
}

export interface ComponentOptions {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
  readonly dir: string;
  readonly quiet: boolean;
  readonly say: (line: string) => void;
  /** Told the new process id after each restart (the stack's dev.json lists the live ones). */
  readonly onRestart: () => void;
}

export class DevComponent {
  readonly name: string;
  readonly log: string;
  /** Resolves when the first process ends, whoever ended it: before the stack is up, that is a failure. */
  readonly firstEnd: Promise<void>;
  /** Restarts so far. */
  restarts = 0;
  private child: ChildProcess;
  private ended: Promise<void>;
  private restartable = false;
  private stopping = false;
  private streak = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly options: ComponentOptions;

  constructor(options: ComponentOptions) {
    this.options = options;
    this.name = options.name;
    this.log = join(options.dir, `${options.name}.log`);
    [this.child, this.ended] = this.spawn(false);
    this.firstEnd = this.ended;
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** From now on an end is told and followed by a restart. */
  keepRunning(): void {
    this.restartable = true;
  }

  private spawn(append: boolean): [ChildProcess, Promise<void>] {
    const file = createWriteStream(this.log, { flags: append ? 'a' : 'w' });
    const startedAt = Date.now();
    // A process group of its own: Ctrl-C reaches `make dev`, which stops the components in order.
    const child = spawn(process.execPath, [join(root, this.options.script), ...this.options.args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    for (const stream of [child.stdout, child.stderr]) {
      stream.on('data', (chunk: Buffer) => {
        file.write(chunk);
        if (!this.options.quiet) process.stdout.write(chunk);
      });
    }
    const ended = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        file.end(() => {
          if (!this.stopping) this.options.say(`✗ ${this.name} could not start: ${error.message} (log: ${this.log})`);
          resolve();
        });
      });
      child.once('close', (code, signal) => {
        file.end(() => {
          resolve();
          if (!this.stopping) void this.onEnd(code, signal, Date.now() - startedAt);
        });
      });
    });
    return [child, ended];
  }

  /** One line about an end nobody asked for, and the restart after it once the stack is up. */
  private async onEnd(code: number | null, signal: string | null, ranForMs: number): Promise<void> {
    const lastLine = lastMeaningfulLine(await readTail(this.log));
    const restart = this.restartable ? nextRestart(this.streak, ranForMs) : undefined;
    if (this.stopping) return;
    const again = restart === undefined ? {} : { restart: { count: this.restarts + 1, delayMs: restart.delayMs } };
    this.options.say(
      `✗ ${endingReport({ name: this.name, code, signal, log: this.log, ...(lastLine === undefined ? {} : { lastLine }), ...again })}`,
    );
    if (restart === undefined) return;
    this.streak = restart.streak;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopping) return;
      this.restarts += 1;
      [this.child, this.ended] = this.spawn(true);
      this.options.say(`↻ ${this.name} started again (restart ${String(this.restarts)}, pid ${String(this.pid)})`);
      this.options.onRestart();
    }, restart.delayMs);
  }

  /** SIGTERM to its process group, SIGKILL after 15 s; no restart after; resolves once it has ended. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    const { child } = this;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(-(child.pid ?? 0), name);
      } catch {
        // Already gone.
      }
    };
    signal('SIGTERM');
    const timer = setTimeout(() => {
      signal('SIGKILL');
    }, 15_000);
    await this.ended;
    clearTimeout(timer);
  }
}
