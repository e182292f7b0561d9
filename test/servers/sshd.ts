/**
 * OpenSSH's sshd for the ssh executor's tests: installed by scripts/ensure-sshd.sh when
 * missing, started on a free loopback port with a host key, a user key and a config of its own
 * in a temporary directory (no system ssh service). Logins are for one test user, created
 * when missing, whose password is new for every server and locked again when it stops, and
 * for root with the same key only: OpenSSH treats root sessions apart (no privilege
 * separation after login, so no "signal" requests), and the ssh executor must work there too.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const SSH_TEST_USER = 'kubedag-ssh-test';

export interface SshdTestServer {
  readonly port: number;
  /** The unprivileged test user; `root` may log in with userKeyPath as well. */
  readonly user: string;
  readonly password: string;
  /** The user's private key (OpenSSH format), authorized by the server. */
  readonly userKeyPath: string;
  /** A known_hosts line for this server's host key at 127.0.0.1:port. */
  readonly knownHostsLine: string;
  readonly stop: () => Promise<void>;
}

export async function startSshd(dir: string): Promise<SshdTestServer> {
  const root = resolve(import.meta.dirname, '../..');
  const sshd = (await run(join(root, 'scripts/ensure-sshd.sh'))).stdout.trim();
  const password = randomBytes(12).toString('base64url');
  await ensureUser(password);
  await mkdir(dir, { recursive: true });
  // sshd insists on its privilege separation directory, which only its service would create.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = join(dir, 'host_ed25519');
  const userKeyPath = join(dir, 'user_ed25519');
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKeyPath]);
  await writeFile(join(dir, 'authorized_keys'), await readFile(`${userKeyPath}.pub`));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      // The files live in a temporary directory owned by root, not the user's home.
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication yes',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      // Keys only: the tests run as root, and root's password is nothing to offer on a port.
      'PermitRootLogin prohibit-password',
      `AllowUsers ${SSH_TEST_USER} root`,
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  const daemon = spawn(sshd, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  const log: Buffer[] = [];
  daemon.stderr.on('data', (chunk: Buffer) => log.push(chunk));
  await waitForPort(port, daemon, () => Buffer.concat(log).toString('utf8'));
  const hostPublic = (await readFile(`${hostKey}.pub`, 'utf8')).trim().split(/\s+/);
  return {
    port,
    user: SSH_TEST_USER,
    password,
    userKeyPath,
    knownHostsLine: `[127.0.0.1]:${port} ${hostPublic[0] ?? ''} ${hostPublic[1] ?? ''}\n`,
    stop: async () => {
      daemon.kill('SIGTERM');
      await run('passwd', ['-q', '-l', SSH_TEST_USER]).catch(() => undefined);
    },
  };
}

async function ensureUser(password: string): Promise<void> {
  const exists = await run('id', ['-u', SSH_TEST_USER]).then(
    () => true,
    () => false,
  );
  if (!exists)
    await run('useradd', ['--system', '--no-create-home', '--home-dir', '/', '--shell', '/bin/sh', SSH_TEST_USER]);
  // The home directory must exist, or sshd says so on stderr of every session.
  await run('usermod', ['--home', '/', SSH_TEST_USER]);
  const chpasswd = spawn('chpasswd', { stdio: ['pipe', 'ignore', 'inherit'] });
  chpasswd.stdin.end(`${SSH_TEST_USER}:${password}\n`);
  const code = await new Promise<number | null>((done) => chpasswd.on('close', done));
  if (code !== 0) throw new Error(`chpasswd for ${SSH_TEST_USER} exited with ${String(code)}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
}

async function waitForPort(port: number, daemon: ChildProcess, log: () => string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (daemon.exitCode !== null) throw new Error(`sshd exited with ${String(daemon.exitCode)}:\n${log()}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        done(true);
      });
      socket.on('error', () => {
        done(false);
      });
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`sshd did not listen on ${String(port)}:\n${log()}`);
}
