import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { V1Status } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, wrapCommand } from './container-exec.ts';

describe('exitCodeOf, the status at the end of an exec', () => {
  const cases: { name: string; status: V1Status; want: number | { error: string } }[] = [
    { name: 'is 0 for Success', status: { status: 'Success' }, want: 0 },
    { name: 'is the ExitCode cause of a NonZeroExitCode failure', status: { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '42' }] } }, want: 42 },
    { name: 'is an error with the message of any other failure', status: { status: 'Failure', reason: 'InternalError', message: 'container not running' }, want: { error: 'container not running' } },
    { name: 'is an error for a NonZeroExitCode failure without a readable code', status: { status: 'Failure', reason: 'NonZeroExitCode', message: 'odd', details: { causes: [{ reason: 'ExitCode', message: 'x' }] } }, want: { error: 'odd' } },
  ];
  it.each(cases)('$name', ({ status, want }) => {
    expect(exitCodeOf(status)).toEqual(want);
  });
});

describe('wrapCommand', () => {
  it('passes the grace period in whole seconds (at least one) and the signal without SIG, then the command', () => {
    expect(wrapCommand(['python', '-c', 'print(1)'], 'SIGINT', 2500).slice(3)).toEqual(['kubedag-exec', '3', 'INT', 'python', '-c', 'print(1)']);
    expect(wrapCommand(['true'], 'SIGTERM', 0).slice(4, 6)).toEqual(['1', 'TERM']);
  });
});

describe('the wrapper, run by this machine\'s sh as the container would', () => {
  /** Runs the wrapped command as an exec's group leader; `endStdinAfterMs` ends the lifeline. */
  async function run(command: string[], options: { graceMs: number; endStdinAfterMs?: number }): Promise<{ code: number; stdout: string; ms: number }> {
    const [file = '', ...args] = wrapCommand(command, 'SIGTERM', options.graceMs);
    const started = Date.now();
    const child = spawn(file, args, { detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    if (options.endStdinAfterMs !== undefined) setTimeout(() => child.stdin.end(), options.endStdinAfterMs);
    // As a runtime reports it: 128 + the signal that ended the wrapper.
    const code = await new Promise<number>((resolve) => child.on('close', (c, signal) => { resolve(c ?? 128 + (signal === null ? 0 : constants.signals[signal])); }));
    child.stdin.destroy();
    return { code, stdout: Buffer.concat(out).toString(), ms: Date.now() - started };
  }

  it('exits with the command\'s own code while the lifeline stays open', async () => {
    expect(await run(['sh', '-c', 'echo out; exit 7'], { graceMs: 1000 })).toMatchObject({ code: 7, stdout: 'out\n' });
  });

  it('stops the command and what it started when the lifeline ends, without waiting for the grace period', async () => {
    const ran = await run(['sh', '-c', 'echo started; sleep 5; echo finished'], { graceMs: 4000, endStdinAfterMs: 300 });
    expect([ran.code, ran.stdout, ran.ms < 2000]).toEqual([143, 'started\n', true]);
  });

  it('kills a command that ignores the stop signal once the grace period is over', async () => {
    const ran = await run(['sh', '-c', 'trap "" TERM; echo started; sleep 10; echo finished'], { graceMs: 1000, endStdinAfterMs: 300 });
    expect([ran.code, ran.stdout, ran.ms < 5000]).toEqual([137, 'started\n', true]);
  });
});
