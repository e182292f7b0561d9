/**
 * The ssh executor: runs a step's command or script on a remote host over one ssh session
 * (ssh2). The remote exit status is the step's; stdout and stderr stay apart (no pty). A stop
 * sends the remote process group SIGTERM with an ssh "signal" request, then SIGKILL after a
 * grace period, then closes the connection, so that nothing keeps running on the host.
 */
import { readFile } from 'node:fs/promises';
import { constants, homedir } from 'node:os';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { expandSetting, type StepIO } from '../io.ts';
import { expandDeep } from './expand-settings.ts';
import { checkHostKey } from './ssh-known-hosts.ts';
import { decideTarget, decideWork, type RemoteWork, type SshAuth, type SshTarget } from './ssh-settings.ts';

/** The exit code of a step that could not connect or lost its connection, as ssh(1) uses it. */
export const SSH_FAILURE = 255;

export interface SshOptions {
  /** How long a stopped remote process has between SIGTERM and SIGKILL. */
  readonly stopGraceMs?: number;
  readonly home?: string;
}

export async function runSsh(spec: ExecutorSpec, io: StepIO, options: SshOptions = {}): Promise<number> {
  const config = expandDeep(spec.config, io.env) as Record<string, unknown>;
  const target = decideTarget(config, { cwd: io.cwd, home: options.home ?? homedir(), env: io.env });
  if (!target.ok) return failed(io, target.error);
  const work = decideWork(spec.command && expandSetting(spec.command, io.env), spec.script && expandSetting(spec.script, io.env));
  if (!work.ok) return failed(io, work.error);
  let connect: Connect;
  try {
    connect = await connectConfig(target.value);
  } catch (error) {
    return failed(io, message(error));
  }
  if (io.signal.aborted) return failed(io, 'stopped before connecting');
  return new Session(target.value, connect, work.value, io, options.stopGraceMs ?? 5_000).run();
}

interface Connect {
  readonly config: ConnectConfig;
  /** Why the host key was refused, once the server presented one that failed the check. */
  readonly refusal: { reason?: string };
}

/** Gathers what the connection needs from files: the key and the known hosts. */
async function connectConfig(target: SshTarget): Promise<Connect> {
  const knownHosts = target.knownHosts === undefined ? undefined : await readKnownHosts(target.knownHosts);
  const refusal: { reason?: string } = {};
  const hostVerifier = (key: Buffer): boolean => {
    const verdict = checkHostKey(knownHosts ?? '', target.host, target.port, key);
    if (!verdict.ok) refusal.reason = verdict.reason;
    return verdict.ok;
  };
  const config: ConnectConfig = {
    host: target.host,
    port: target.port,
    username: target.user,
    ...(await credentials(target.auth)),
    ...(knownHosts === undefined ? {} : { hostVerifier }),
    readyTimeout: 30_000,
  };
  return { config, refusal };
}

async function readKnownHosts(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`strictHostKey is on, but known_hosts file ${path} cannot be read (${message(error)}); name one with knownHostFile or set strictHostKey: false`, { cause: error });
  }
}

async function credentials(auth: SshAuth): Promise<Pick<ConnectConfig, 'privateKey' | 'password'>> {
  switch (auth.kind) {
    case 'password':
      return { password: auth.password };
    case 'keyText':
      return { privateKey: auth.text };
    case 'keyFile':
      return { privateKey: await readFile(auth.path).catch((error: unknown) => Promise.reject(new Error(`key ${auth.path} cannot be read: ${message(error)}`))) };
    case 'defaultKeys':
      for (const path of auth.paths) {
        const key = await readFile(path).catch(() => undefined);
        if (key !== undefined) return { privateKey: key };
      }
      throw new Error(`no key, password or default key (${auth.paths.join(', ')}) to log in with`);
  }
}

/** One connection running one remote command, from connect to exit status. */
class Session {
  private readonly client = new Client();
  private channel?: ClientChannel;
  private stopped = false;

  private readonly target: SshTarget;
  private readonly connect: Connect;
  private readonly work: RemoteWork;
  private readonly io: StepIO;
  private readonly graceMs: number;

  constructor(target: SshTarget, connect: Connect, work: RemoteWork, io: StepIO, graceMs: number) {
    this.target = target;
    this.connect = connect;
    this.work = work;
    this.io = io;
    this.graceMs = graceMs;
  }

  run(): Promise<number> {
    const { client, io } = this;
    return new Promise<number>((resolve) => {
      const done = (code: number): void => {
        io.signal.removeEventListener('abort', onStop);
        client.end();
        resolve(code);
      };
      const onStop = (): void => {
        this.stop();
      };
      io.signal.addEventListener('abort', onStop, { once: true });
      client.on('error', (error) => {
        done(failed(io, this.connectError(error)));
      });
      client.on('ready', () => {
        this.exec(done);
      });
      client.connect(this.connect.config);
    });
  }

  private exec(done: (code: number) => void): void {
    const { io, work } = this;
    this.client.exec(work.command, (error, channel) => {
      if (error !== undefined) {
        done(failed(io, `cannot run the command: ${error.message}`));
        return;
      }
      this.channel = channel;
      let status: number | undefined;
      channel.on('exit', (code: number | null, signal?: string) => {
        status = code ?? signalStatus(signal);
      });
      channel.on('close', () => {
        if (status !== undefined) done(status);
        else done(failed(io, this.stopped ? 'stopped; the remote side ended without an exit status' : 'the session ended without an exit status'));
      });
      channel.pipe(io.stdout, { end: false });
      channel.stderr.pipe(io.stderr, { end: false });
      channel.end(work.stdin);
      if (io.signal.aborted) this.stop();
    });
  }

  /**
   * OpenSSH's sshd (7.9 and later) delivers a "signal" request to the process group of a
   * session that has no forced command, so the command and what it started end together.
   * A process that ignores SIGTERM gets SIGKILL after the grace period; closing the
   * connection last ends the session whatever the server did with the requests.
   */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const { channel, client } = this;
    if (channel === undefined) {
      client.end();
      return;
    }
    signalRemote(channel, 'TERM');
    const kill = setTimeout(() => {
      signalRemote(channel, 'KILL');
      setTimeout(() => {
        client.end();
      }, 1_000).unref();
    }, this.graceMs);
    kill.unref();
    channel.once('close', () => { clearTimeout(kill); });
  }

  private connectError(error: Error): string {
    const { host, port, user, knownHosts } = this.target;
    // ssh2 reports a refused host key without the reason; the verifier kept it.
    const { reason } = this.connect.refusal;
    if (reason !== undefined) return `host key refused (strictHostKey, ${knownHosts ?? ''}): ${reason}`;
    return `cannot connect to ${user}@${host}:${port}: ${error.message}`;
  }
}

/** The parts of an ssh2 channel that signalRemote reaches past its public API. */
interface ChannelInternals {
  readonly outgoing: { readonly id: number; readonly state: string };
  readonly _client: { readonly _protocol: { signal: (channel: number, name: string) => void } };
}

/**
 * RFC 4254 allows channel requests after EOF (EOF only ends the data we send), and the remote
 * command must see EOF on its stdin as soon as the script or nothing is sent. ssh2's
 * `channel.signal` stays silent once EOF was sent, so the request goes through its protocol
 * object, as `channel.signal` itself would send it.
 */
function signalRemote(channel: ClientChannel, name: 'TERM' | 'KILL'): void {
  const internals = channel as unknown as ChannelInternals;
  if (internals.outgoing.state !== 'open' && internals.outgoing.state !== 'eof') return;
  internals._client._protocol.signal(internals.outgoing.id, name);
}

/** A command ended by a signal exits like a shell reports it: 128 + the signal number. */
function signalStatus(signal: string | undefined): number {
  // ssh2 names it `SIGTERM`; the protocol's exit-signal says `TERM`.
  const name = signal === undefined ? undefined : signal.startsWith('SIG') ? signal : `SIG${signal}`;
  const number = name === undefined ? undefined : (constants.signals as Record<string, number | undefined>)[name];
  return number === undefined ? SSH_FAILURE : 128 + number;
}

function failed(io: StepIO, text: string): number {
  io.stderr.write(`ssh: ${text}\n`);
  return SSH_FAILURE;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
