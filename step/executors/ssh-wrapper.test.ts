/**
 * The remote wrapper in each POSIX-family shell this machine has (dash and bash always; zsh
 * and busybox ash where installed), started as sshd starts a login shell: `shell -c`, as the
 * leader of a new session (setsid), stdin and stdout and stderr as pipes. What sshd adds on
 * top (refused signals for root, a dropped connection) is in ssh-stop.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapRemote, type RemoteStop } from './ssh-wrapper.ts';
import type { RemoteWork } from './ssh-settings.ts';
import { temporaryDir } from '../../test/step-io.ts';

const SHELLS = [['dash'], ['bash'], ['zsh'], ['busybox', 'sh']].filter(
  ([program]) => spawnSync('sh', ['-c', `command -v ${program ?? ''}`]).status === 0,
);
let dir: Awaited<ReturnType<typeof temporaryDir>>;
beforeAll(async () => {
  dir = await temporaryDir('ssh-wrapper');
});
afterAll(async () => {
  await dir.remove();
});

interface Session {
  readonly done: Promise<{ code: number | null; signal: string | null; out: string; err: string }>;
  /** Ends the lifeline, as a stop or a lost connection does. */
  readonly endStdin: () => void;
}

function startSession(
  shell: readonly string[],
  work: RemoteWork,
  stop: RemoteStop = { signal: 'TERM', graceMs: 1_000 },
): Session {
  const wrapped = wrapRemote(work, stop);
  const child = spawn('setsid', [...shell, '-c', wrapped.command], { stdio: 'pipe' });
  child.stdin.write(wrapped.stdin);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const done = new Promise<{ code: number | null; signal: string | null; out: string; err: string }>((resolve) => {
    child.on('close', (code, signal) => {
      // sshd closes the session's stdin once it has reaped the login shell.
      child.stdin.end();
      resolve({ code, signal, out: Buffer.concat(out).toString('utf8'), err: Buffer.concat(err).toString('utf8') });
    });
  });
  return {
    done,
    endStdin: () => {
      child.stdin.end();
    },
  };
}

describe.each(SHELLS.map((shell) => [shell.join(' '), shell] as const))('the ssh wrapper in %s', (name, shell) => {
  const file = (what: string): string => join(dir.path, `${name.replace(' ', '-')}-${what}`);

  it('keeps stdout and stderr apart and exits as the command does, its stdin empty', async () => {
    const session = startSession(shell, { command: 'cat; echo "it\'s $__kd_c"; echo oops >&2; exit 3' });
    expect(await session.done).toEqual({ code: 3, signal: null, out: "it's \n", err: 'oops\n' });
  });

  it('gives a script to its interpreter byte for byte', async () => {
    const script = 'grüße\n\nno newline at the end';
    expect(await startSession(shell, { command: 'cat', stdin: script }).done).toEqual({
      code: 0,
      signal: null,
      out: script,
      err: '',
    });
  });

  it('runs nothing from a script cut short', async () => {
    const wrapped = wrapRemote(
      { command: `touch ${file('cut')}; cat`, stdin: 'a whole script' },
      { signal: 'TERM', graceMs: 1_000 },
    );
    const child = spawn('setsid', [...shell, '-c', wrapped.command], { stdio: ['pipe', 'ignore', 'pipe'] });
    child.stdin.end(wrapped.stdin.slice(0, 5));
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(255);
    await expect(readFile(file('cut'))).rejects.toThrow(/ENOENT/);
  });

  it('on the end of stdin sends the stop signal to the command and what it started', async () => {
    const session = startSession(shell, {
      command: `trap 'echo stopped; exit 9' TERM; sleep 30 & echo $! > ${file('bg')}; while :; do sleep 0.1; done`,
    });
    const pid = await waitForPid(file('bg'));
    session.endStdin();
    expect(await session.done).toMatchObject({ code: 9, out: 'stopped\n' });
    await expect.poll(() => alive(pid), { timeout: 3_000 }).toBe(false);
  });

  it('leaves what a command that ended by itself started in the background', async () => {
    const session = startSession(shell, { command: `sleep 30 >/dev/null 2>&1 & echo $! > ${file('daemon')}` });
    expect(await session.done).toMatchObject({ code: 0 });
    const pid = await waitForPid(file('daemon'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await alive(pid)).toBe(true);
    process.kill(pid, 'SIGKILL');
  });
});

async function waitForPid(path: string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() !== '') return Number(text.trim());
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no pid in ${path}`);
}

/** Zombies count as gone: an orphan's reaper here may be a PID 1 that never reaps. */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
