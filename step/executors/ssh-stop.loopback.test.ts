/**
 * Stopping ssh steps against OpenSSH's sshd on loopback, as root and as an unprivileged user:
 * sshd treats root sessions apart (it refuses "signal" requests there), and a step runner that
 * dies only drops its connection. Each way, nothing the step started may keep running on the
 * host, which here is this machine: the tests read its process table and marker files.
 * Also: the wrapper that makes this work changes nothing the command sees.
 */
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Client } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { EXECUTOR_ENV, type ExecutorSpec } from '../../core/runner/spec.ts';
import { runSsh } from './ssh.ts';
import { SSH_TEST_USER, type SshdTestServer } from '../../test/servers/sshd.ts';
import { asRoot, withSshd } from '../../test/servers/with-sshd.ts';
import { captureIO } from '../../test/step-io.ts';

let dir: string;
let sshd: SshdTestServer;
let knownHosts: string;

withSshd('ssh-stop', (made) => ({ dir, sshd, knownHosts } = made));

function sshStep(user: string, command: string, stop?: ExecutorSpec['stop']): ExecutorSpec {
  return {
    type: 'ssh',
    config: { host: '127.0.0.1', port: String(sshd.port), user, key: sshd.userKeyPath, knownHostFile: knownHosts },
    command,
    ...(stop === undefined ? {} : { stop }),
  };
}

describe.runIf(asRoot).each([SSH_TEST_USER, 'root'])('stopping an ssh step that logs in as %s', (user) => {
  const file = (name: string): string => join(dir, `${user}-${name}`);

  it('ends the remote command and what it started in the background', async () => {
    const io = captureIO();
    const command = `sleep 300 & echo $! > ${file('child')}; echo $$ > ${file('shell')}; while :; do date +%s%N > ${file('marker')}; sleep 0.1; done`;
    const running = runSsh(sshStep(user, command), io, { stopGraceMs: 3_000 });
    const pids = [await waitForPid(file('shell')), await waitForPid(file('child'))];
    expect(await Promise.all(pids.map(alive))).toEqual([true, true]);
    io.stop();
    // The shell dies of SIGTERM: 128 + 15.
    expect({ code: await running, err: io.err() }).toEqual({ code: 143, err: '' });
    await expect.poll(() => Promise.all(pids.map(alive)), { timeout: 5_000 }).toEqual([false, false]);
    const marker = await readFile(file('marker'), 'utf8');
    await new Promise((done) => setTimeout(done, 500));
    expect(await readFile(file('marker'), 'utf8')).toBe(marker);
  });

  it("delivers the DAG's signalOnStop, which the command may handle and clean up after", async () => {
    const io = captureIO();
    const command = `trap 'echo cleaned up > ${file('cleanup')}; exit 5' INT; echo $$ > ${file('trapper')}; while :; do sleep 0.1; done`;
    const running = runSsh(sshStep(user, command, { signal: 'SIGINT', graceMs: 3_000 }), io);
    const pid = await waitForPid(file('trapper'));
    io.stop();
    expect({ code: await running, err: io.err() }).toEqual({ code: 5, err: '' });
    expect(await readFile(file('cleanup'), 'utf8')).toBe('cleaned up\n');
    expect(await alive(pid)).toBe(false);
  });

  it('gives a command that ignores the stop signal SIGKILL after the grace period', async () => {
    const io = captureIO();
    const command = `trap '' TERM; echo $$ > ${file('stubborn')}; while :; do sleep 0.1; done`;
    const running = runSsh(sshStep(user, command, { signal: 'SIGTERM', graceMs: 1_000 }), io);
    const pid = await waitForPid(file('stubborn'));
    io.stop();
    // 128 + 9; the grace period is whole seconds on the host.
    expect(await running).toBe(137);
    expect(await alive(pid)).toBe(false);
  });

  it('ends the remote command when the step runner is killed and its connection drops', async () => {
    const pidFile = file('orphan');
    const spec = sshStep(user, `echo $$ > ${pidFile}; exec sleep 300`, { signal: 'SIGTERM', graceMs: 2_000 });
    // The runner itself, as a step Pod runs it; SIGKILL gives it no chance to say goodbye.
    const runner = spawn(process.execPath, [resolve(import.meta.dirname, '../main.ts'), 'executor'], {
      env: { ...process.env, [EXECUTOR_ENV]: JSON.stringify(spec) },
      stdio: 'ignore',
    });
    const exited = new Promise((done) => runner.once('exit', done));
    const pid = await waitForPid(pidFile);
    runner.kill('SIGKILL');
    await exited;
    await expect.poll(() => alive(pid), { timeout: 5_000 }).toBe(false);
  });

  it.each(['SIGUSR1', 'SIGHUP'])(
    'passes signalOnStop %s on to the remote command when the runner itself gets it',
    async (signal) => {
      const got = file(`got-${signal}`);
      const name = signal.replace(/^SIG/, '');
      const spec = sshStep(
        user,
        `trap 'echo ${name} > ${got}; exit 0' ${name}; echo $$ > ${got}.pid; while :; do sleep 0.1; done`,
        { signal, graceMs: 3_000 },
      );
      const runner = spawn(process.execPath, [resolve(import.meta.dirname, '../main.ts'), 'executor'], {
        env: { ...process.env, [EXECUTOR_ENV]: JSON.stringify(spec) },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      const err: Buffer[] = [];
      runner.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      const exited = new Promise<number | null>((done) => runner.once('close', done));
      try {
        await waitForPid(`${got}.pid`);
        runner.kill(signal as NodeJS.Signals);
        // A stopped runner exits as the signal would have ended it: 128 + its number.
        // The remote shell may report its sleep killed; Node's inspector must not have started.
        // A runner whose inspector took the signal runs on; the race keeps the finally in time.
        const late = new Promise((done) =>
          setTimeout(() => {
            done('still running after 8 s');
          }, 8_000),
        );
        expect(await Promise.race([exited, late])).toBe(signal === 'SIGUSR1' ? 138 : 129);
        expect(Buffer.concat(err).toString('utf8')).not.toMatch(/Debugger/);
        await expect.poll(() => readFile(got, 'utf8').catch(() => ''), { timeout: 5_000 }).toBe(`${name}\n`);
      } finally {
        runner.kill('SIGKILL');
      }
    },
  );

  it('changes nothing the command sees: environment, directory, shell, streams and exit status', async () => {
    // SSH_CLIENT and SSH_CONNECTION name the client's port, new for every connection.
    const command = 'env | grep -v "^SSH_C" | sort; pwd; echo "$0 $-"; echo to stderr >&2; exit 3';
    const io = captureIO();
    const code = await runSsh(sshStep(user, command), io);
    const plain = await plainExec(user, command);
    expect({ code, out: io.out(), err: io.err() }).toEqual(plain);
    expect(plain.code).toBe(3);
  });

  it('hands a script to its interpreter byte for byte, apart from the lifeline', async () => {
    const io = captureIO();
    // Multi-byte text and no newline at the end: the wrapper counts bytes, not characters.
    const script = 'grüße\n\nlast line, no newline';
    const code = await runSsh({ ...sshStep(user, 'cat'), script }, io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({ code: 0, out: script, err: '' });
  });
});

/** The same command over a bare ssh2 exec, as it ran before the wrapper. */
async function plainExec(user: string, command: string): Promise<{ code: number | null; out: string; err: string }> {
  const client = new Client();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  try {
    return await new Promise((done, fail) => {
      client.on('error', fail);
      client.on('ready', () => {
        client.exec(command, (error, channel) => {
          if (error !== undefined) {
            fail(error);
            return;
          }
          let code: number | null = null;
          channel.on('data', (chunk: Buffer) => out.push(chunk));
          channel.stderr.on('data', (chunk: Buffer) => err.push(chunk));
          channel.on('exit', (status: number | null) => {
            code = status;
          });
          channel.on('close', () => {
            done({ code, out: Buffer.concat(out).toString('utf8'), err: Buffer.concat(err).toString('utf8') });
          });
          channel.end();
        });
      });
      void readFile(sshd.userKeyPath).then(
        (privateKey) => client.connect({ host: '127.0.0.1', port: sshd.port, username: user, privateKey }),
        fail,
      );
    });
  } finally {
    client.end();
  }
}

async function waitForPid(path: string): Promise<number> {
  // Up to 10 s: on a loaded machine the runner alone may take seconds to start.
  for (let attempt = 0; attempt < 400; attempt++) {
    const text = await readFile(path, 'utf8').catch(() => '');
    if (text.trim() !== '') return Number(text.trim());
    await new Promise((done) => setTimeout(done, 25));
  }
  throw new Error(`no pid in ${path}`);
}

/** A zombie is gone too: orphans are reaped by PID 1, which in a container may never do it. */
async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${String(pid)}/stat`, 'utf8').catch(() => '');
  // The state follows the command name, which is in parentheses and may hold spaces.
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}
