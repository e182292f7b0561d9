/**
 * OpenSSH's sshd (test/servers/sshd.ts) for a test file: started before its tests in a
 * temporary directory, with a known_hosts file that trusts it, and stopped after them.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { temporaryDir } from '../step-io.ts';
import { startSshd, type SshdTestServer } from './sshd.ts';

/** sshd must run as root to log in another user; CI runs as root, as the node agent needs. */
export const asRoot = process.getuid?.() === 0;

export interface SshdFixture {
  readonly sshd: SshdTestServer;
  /** A directory both remote users (the test user and root) may write to. */
  readonly dir: string;
  /** A known_hosts file: `knownHostsBefore`, then the server's host key. */
  readonly knownHosts: string;
}

/**
 * Starts sshd before the file's tests when running as root (else nothing, and the file's
 * describes skip with `describe.runIf(asRoot)`); `use` gets it once it listens.
 */
export function withSshd(prefix: string, use: (made: SshdFixture) => void, knownHostsBefore = ''): void {
  let dir: Awaited<ReturnType<typeof temporaryDir>> | undefined;
  let sshd: SshdTestServer | undefined;
  beforeAll(async () => {
    if (!asRoot) return;
    dir = await temporaryDir(prefix);
    // Remote users write pid and marker files here, or must be seen not to.
    await chmod(dir.path, 0o777);
    sshd = await startSshd(join(dir.path, 'sshd'));
    const knownHosts = join(dir.path, 'known_hosts');
    await writeFile(knownHosts, `${knownHostsBefore}${sshd.knownHostsLine}`);
    use({ sshd, dir: dir.path, knownHosts });
  }, 60_000);
  afterAll(async () => {
    await sshd?.stop();
    await dir?.remove();
  });
}
