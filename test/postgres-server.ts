/**
 * A real PostgreSQL on loopback for tests of the history store: Debian's server programs
 * (scripts/ensure-postgres.sh installs them when missing), a fresh cluster made by `initdb` in a
 * temporary directory, and `postgres` on a free 127.0.0.1 port with no Unix socket; never a
 * system service. PostgreSQL refuses to run as root, so as root both programs run as the
 * `postgres` user the Debian package creates, which then owns the directory. `stop` shuts the
 * server down (fast: open connections are ended) and removes the directory.
 */
import { execFile, spawn } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../cluster/processes.ts';

const run = promisify(execFile);

export interface PostgresServer {
  /** postgres://kubedag:<password>@127.0.0.1:<port>/kubedag */
  readonly url: string;
  readonly port: number;
  /** Creates a new empty database on the server; its URL. */
  database(name: string): Promise<string>;
  readonly output: () => string;
  stop(): Promise<void>;
}

/** Long enough for a first install of Debian's postgresql on a fresh machine (beforeAll). */
export const POSTGRES_SERVER_START_MS = 600_000;

const USER = 'kubedag';

export async function startPostgres(): Promise<PostgresServer> {
  const root = resolve(import.meta.dirname, '..');
  const bin = (await run(join(root, 'scripts/ensure-postgres.sh'), { maxBuffer: 1 << 20 })).stdout.trim();
  const owner = await serverUser();
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-pg-'));
  const data = join(dir, 'data');
  const password = `pw-${String(process.pid)}-${String(Date.now())}`;
  await writeFile(join(dir, 'password'), `${password}\n`, { mode: 0o600 });
  if (owner !== undefined) await chown(dir, owner.uid, owner.gid);
  if (owner !== undefined) await chown(join(dir, 'password'), owner.uid, owner.gid);
  const as = owner === undefined ? {} : { uid: owner.uid, gid: owner.gid };
  await run(
    join(bin, 'initdb'),
    [
      '-D',
      data,
      '-U',
      USER,
      `--pwfile=${join(dir, 'password')}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
    ],
    { ...as, cwd: dir },
  );
  const port = await freePort();
  // Durability is not what these tests are about; fsync off keeps 20,000 writes quick.
  const settings = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: '',
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '40',
  };
  const args = ['-D', data, ...Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`])];
  const child = spawn(join(bin, 'postgres'), args, { ...as, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${String(port)}/postgres`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGINT is PostgreSQL's fast shutdown: it ends open sessions instead of waiting for them.
      child.kill('SIGINT');
      await new Promise((done) => child.once('exit', done));
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(
      url,
      () => child.exitCode !== null,
      () => output,
    );
    await query(url, `CREATE DATABASE ${USER}`);
  } catch (error) {
    await stop();
    throw error;
  }
  const urlOf = (database: string): string => url.replace(/\/postgres$/, `/${database}`);
  const database = async (name: string): Promise<string> => {
    if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
    await query(url, `CREATE DATABASE ${name}`);
    return urlOf(name);
  };
  return { url: urlOf(USER), port, database, output: () => output, stop };
}

/** Who runs the server: nobody else when not root; as root, Debian's `postgres` user. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const id = async (flag: string): Promise<number> => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    throw new Error(
      "PostgreSQL refuses to run as root and there is no `postgres` user to run it as (Debian's postgresql package creates one)",
    );
  }
}

async function waitUntilReady(url: string, exited: () => boolean, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (exited()) throw new Error(`postgres exited:\n${output()}`);
    if (
      await query(url, 'SELECT 1').then(
        () => true,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`postgres did not answer within 30 s:\n${output()}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function query(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
