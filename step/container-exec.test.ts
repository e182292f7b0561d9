import { spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import type { V1Status } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, wrapCommand } from './container-exec.ts';

describe('exitCodeOf, the status at the end of an exec', () => {
  const cases: { name: string; status: V1Status; want: number | { error: string } }[] = [
    { name: 'is 0 for Success', status: { status: 'Success' }, want: 0 },
    {
      name: 'is the ExitCode cause of a NonZeroExitCode failure',
      status: {
        status: 'Failure',
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: '42' }] },
      },
      want: 42,
    },
    {
      name: 'is an error with the message of any other failure',
      status: { status: 'Failure', reason: 'InternalError', message: 'container not running' },
      want: { error: 'container not running' },
    },
    {
      name: 'is an error for a NonZeroExitCode failure without a readable code',
      status: {
        status: 'Failure',
        reason: 'NonZeroExitCode',
        message: 'odd',
        details: { causes: [{ reason: 'ExitCode', message: 'x' }] },
      },
      want: { error: 'odd' },
    },
  ];
  it.each(cases)('$name', ({ status, want }) => {
    expect(exitCodeOf(status)).toEqual(want);
  });
});

describe('wrapCommand', () => {
  it('passes the grace period in whole seconds (at least one) and the signal without SIG, then the command', () => {
    expect(wrapCommand(['python', '-c', 'print(1)'], 'SIGINT', 2500).slice(3)).toEqual([
      'kubedag-exec',
      '3',
      'INT',
      'python',
      '-c',
      'print(1)',
    ]);
    expect(wrapCommand(['true'], 'SIGTERM', 0).slice(4, 6)).toEqual(['1', 'TERM']);
  });
});

/** The POSIX-family shells this machine has; a container's /bin/sh may be any of them. */
const SHELLS = [['dash'], ['bash'], ['zsh'], ['busybox', 'sh']].filter(
  ([program]) => spawnSync('sh', ['-c', `command -v ${program ?? ''}`]).status === 0,
);

describe.each(SHELLS.map((shell) => [shell.join(' '), shell] as const))(
  'the wrapper, run by %s as the container would',
  (_name, shell) => {
    /**
     * Runs the wrapped command as an exec's group leader. `endStdinAfterMs`: ends the lifeline
     * that long after the command's first output (a loaded machine may take long to get there);
     * `ms` is then the time from that end to the command's.
     */
    async function run(
      command: string[],
      options: { graceMs: number; endStdinAfterMs?: number; signal?: NodeJS.Signals },
    ): Promise<{ code: number; stdout: string; ms: number }> {
      const [, ...args] = wrapCommand(command, options.signal ?? 'SIGTERM', options.graceMs);
      let started = Date.now();
      const child = spawn(shell[0] ?? 'sh', [...shell.slice(1), ...args], {
        detached: true,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      const out: Buffer[] = [];
      child.stdout.on('data', (d: Buffer) => {
        if (out.length === 0 && options.endStdinAfterMs !== undefined) {
          setTimeout(() => {
            started = Date.now();
            child.stdin.end();
          }, options.endStdinAfterMs);
        }
        out.push(d);
      });
      // As a runtime reports it: 128 + the signal that ended the command.
      const code = await new Promise<number>((resolve) =>
        child.on('close', (c, signal) => {
          resolve(c ?? 128 + (signal === null ? 0 : constants.signals[signal]));
        }),
      );
      // The session ends: its stdin closes, as a runtime closes it once the command is gone.
      child.stdin.destroy();
      return { code, stdout: Buffer.concat(out).toString(), ms: Date.now() - started };
    }

    it("exits with the command's own code while the lifeline stays open, its stdin empty", async () => {
      expect(await run(['sh', '-c', 'cat; echo out; exit 7'], { graceMs: 1000 })).toMatchObject({
        code: 7,
        stdout: 'out\n',
      });
    });

    it('stops the command and what it started when the lifeline ends, without waiting for the grace period', async () => {
      const ran = await run(['sh', '-c', 'echo started; sleep 5; echo finished'], {
        graceMs: 4000,
        endStdinAfterMs: 300,
      });
      expect([ran.code, ran.stdout, ran.ms < 2000]).toEqual([143, 'started\n', true]);
    });

    it('kills a command that ignores the stop signal once the grace period is over', async () => {
      const ran = await run(['sh', '-c', 'trap "" TERM; echo started; sleep 10; echo finished'], {
        graceMs: 1000,
        endStdinAfterMs: 300,
      });
      expect([ran.code, ran.stdout, ran.ms < 5000]).toEqual([137, 'started\n', true]);
    });

    it.each(['SIGINT', 'SIGQUIT', 'SIGUSR1', 'SIGHUP'] as const)(
      'delivers signalOnStop %s to the command, which may handle it',
      async (signal) => {
        const name = signal.replace(/^SIG/, '');
        // Counts what arrives, and waits a little after the first: the signal must come once.
        const traps = ['INT', 'QUIT', 'USR1', 'HUP', 'TERM'].map((s) => `trap 'got="$got ${s}"' ${s}`).join('; ');
        const command = `got=; ${traps}; echo started; while [ -z "$got" ]; do sleep 0.1; done; sleep 0.3; echo "got$got"; exit 5`;
        const ran = await run(['sh', '-c', command], { graceMs: 3000, endStdinAfterMs: 200, signal });
        expect([ran.code, ran.stdout, ran.ms < 3000]).toEqual([5, `started\ngot ${name}\n`, true]);
      },
    );

    it('delivers SIGINT to a command without a handler of its own, which dies of it', async () => {
      const ran = await run(['sh', '-c', 'echo started; exec sleep 10'], {
        graceMs: 3000,
        endStdinAfterMs: 300,
        signal: 'SIGINT',
      });
      expect([ran.code, ran.ms < 3000]).toEqual([130, true]);
    });
  },
);
