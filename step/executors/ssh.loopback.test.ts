/**
 * The ssh executor against OpenSSH's sshd on loopback (see test/servers/sshd.ts): commands,
 * scripts, exit status, separate streams, password and key logins and host key checks.
 * Stopping is in ssh-stop.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SSH_KEY_ENV, type ExecutorSpec } from '../../core/runner/spec.ts';
import { runSsh } from './ssh.ts';
import type { SshdTestServer } from '../../test/servers/sshd.ts';
import { asRoot, withSshd } from '../../test/servers/with-sshd.ts';
import { captureIO } from '../../test/step-io.ts';

let dir: string;
let sshd: SshdTestServer;
let knownHosts: string;

withSshd(
  'ssh',
  (made) => ({ dir, sshd, knownHosts } = made),
  // Another host's line first: the server's own is found past it.
  '# another host first\nexample.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n',
);

function sshStep(config: Record<string, unknown>, work: { command?: string; script?: string }): ExecutorSpec {
  return {
    type: 'ssh',
    config: {
      host: '127.0.0.1',
      port: String(sshd.port),
      user: sshd.user,
      key: sshd.userKeyPath,
      knownHostFile: knownHosts,
      ...config,
    },
    ...work,
  };
}

describe.runIf(asRoot)('runSsh against OpenSSH sshd', () => {
  it('runs a command with a key, keeping stdout and stderr apart, and takes its exit status', async () => {
    const io = captureIO({ env: { GREETING: 'hello' } });
    const code = await runSsh(sshStep({}, { command: 'echo ${GREETING} from $(id -un); echo oops >&2; exit 3' }), io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({
      code: 3,
      out: `hello from ${sshd.user}\n`,
      err: 'oops\n',
    });
  });

  it('runs a script with /bin/sh and succeeds with its last command', async () => {
    const io = captureIO();
    const script = 'set -u\nfor n in 1 2; do\n  echo "line $n"\ndone\ntest "$(pwd)" = /\n';
    const code = await runSsh(sshStep({}, { script }), io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({ code: 0, out: 'line 1\nline 2\n', err: '' });
  });

  it('runs a script with the step command as its interpreter', async () => {
    const io = captureIO();
    const code = await runSsh(sshStep({}, { command: 'sh -s', script: 'echo "interpreted by $0"; exit 7' }), io);
    expect({ code, out: io.out() }).toEqual({ code: 7, out: 'interpreted by sh\n' });
  });

  it('logs in with a password', async () => {
    const io = captureIO({ env: { SSH_PASSWORD: sshd.password } });
    const code = await runSsh(sshStep({ key: undefined, password: '${SSH_PASSWORD}' }, { command: 'id -un' }), io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({ code: 0, out: `${sshd.user}\n`, err: '' });
  });

  it('fails with 255 when the password is wrong', async () => {
    const io = captureIO();
    const code = await runSsh(sshStep({ key: undefined, password: 'wrong' }, { command: 'true' }), io);
    expect(code).toBe(255);
    expect(io.err()).toMatch(
      /^ssh: cannot connect to kubedag-ssh-test@127\.0\.0\.1:\d+: All configured authentication methods failed/,
    );
  });

  it('logs in with a key handed over from a Kubernetes Secret in KUBEDAG_SSH_KEY', async () => {
    const io = captureIO({ env: { [SSH_KEY_ENV]: await readFile(sshd.userKeyPath, 'utf8') } });
    const code = await runSsh(
      sshStep({ key: { secretKeyRef: { name: 'deploy-ssh', key: 'id_ed25519' } } }, { command: 'echo via secret' }),
      io,
    );
    expect({ code, out: io.out() }).toEqual({ code: 0, out: 'via secret\n' });
  });

  it('refuses a host whose key is not in known_hosts, running nothing', async () => {
    const otherHosts = join(dir, 'other_known_hosts');
    await writeFile(otherHosts, sshd.knownHostsLine.replace(/^\S+/, 'example.com'));
    const marker = join(dir, 'must-not-exist');
    const io = captureIO();
    const code = await runSsh(sshStep({ knownHostFile: otherHosts }, { command: `touch ${marker}` }), io);
    expect(code).toBe(255);
    expect(io.err()).toContain(`[127.0.0.1]:${String(sshd.port)} is not in known_hosts`);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });

  it('runs the command in shell with shellArgs, inside set -e, as Dagu 2.x does', async () => {
    const io = captureIO();
    const code = await runSsh(
      sshStep(
        { shell: 'bash', shellArgs: ['-o', 'pipefail'] },
        { command: 'echo "in $0"; false | true; echo not reached' },
      ),
      io,
    );
    expect({ code, out: io.out(), err: io.err() }).toEqual({ code: 1, out: 'in bash\n', err: '' });
  });

  it('runs a script in shell', async () => {
    const io = captureIO();
    const code = await runSsh(
      sshStep({ shell: '/bin/sh' }, { script: 'for n in 1 2; do echo "n=$n"; done\nexit 4' }),
      io,
    );
    expect({ code, out: io.out() }).toEqual({ code: 4, out: 'n=1\nn=2\n' });
  });

  it('logs in through a bastion (the server as its own jump host)', async () => {
    const io = captureIO();
    const bastion = { host: '127.0.0.1', port: sshd.port, user: 'root', key: sshd.userKeyPath };
    const code = await runSsh(sshStep({ bastion }, { command: 'id -un' }), io);
    expect({ code, out: io.out(), err: io.err() }).toEqual({ code: 0, out: `${sshd.user}\n`, err: '' });
  });

  it('fails with 255 naming the bastion when the jump host refuses the login, running nothing', async () => {
    const marker = join(dir, 'not-through-bastion');
    const io = captureIO();
    const bastion = { host: '127.0.0.1', port: String(sshd.port), user: sshd.user, password: 'wrong' };
    const code = await runSsh(sshStep({ bastion }, { command: `touch ${marker}` }), io);
    expect(code).toBe(255);
    expect(io.err()).toMatch(
      /^ssh: cannot connect to bastion kubedag-ssh-test@127\.0\.0\.1:\d+: All configured authentication methods failed/,
    );
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });

  it('gives up connecting after timeout, on a server that never answers', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    try {
      const io = captureIO();
      const started = Date.now();
      const port = String((silent.address() as AddressInfo).port);
      const code = await runSsh(sshStep({ port, timeout: '300ms' }, { command: 'true' }), io);
      expect({ code, err: io.err() }).toEqual({
        code: 255,
        err: expect.stringMatching(/^ssh: cannot connect to .*: Timed out while waiting for handshake/) as string,
      });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });

  it('accepts any host key with strictHostKey false', async () => {
    const io = captureIO();
    const code = await runSsh(
      sshStep({ strictHostKey: false, knownHostFile: join(dir, 'absent') }, { command: 'echo trusted' }),
      io,
    );
    expect({ code, out: io.out() }).toEqual({ code: 0, out: 'trusted\n' });
  });
});
