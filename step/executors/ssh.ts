/**
 * The ssh executor: runs a step's command or script on a remote host over one ssh session
 * (ssh2). The remote exit status is the step's; stdout and stderr stay apart (no pty). The
 * command runs inside a wrapper (ssh-wrapper.ts) whose stdin the session holds open: a stop
 * ends that stdin, and the host then sends the command's process group the stop signal and
 * SIGKILL after the grace period, whoever the remote user is; a runner that dies ends it too.
 */
import { readFile } from 'node:fs/promises';
import { constants, homedir } from 'node:os';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { expandSetting, type StepIO } from '../io.ts';
import { expandDeep } from './expand-settings.ts';
import { checkHostKey } from './ssh-known-hosts.ts';
import { decideTarget, decideWork, type SshAuth, type SshHop, type SshTarget } from './ssh-settings.ts';
import { DEFAULT_STOP, wrapRemote, type WrappedWork } from './ssh-wrapper.ts';

/** The exit code of a step that could not connect or lost its connection, as ssh(1) uses it. */
export const SSH_FAILURE = 255;

export interface SshOptions {
  /** How long a stopped remote process has between its stop signal and SIGKILL (else the spec's). */
  readonly stopGraceMs?: number;
  readonly home?: string;
}

export async function runSsh(spec: ExecutorSpec, io: StepIO, options: SshOptions = {}): Promise<number> {
  const config = expandDeep(spec.config, io.env) as Record<string, unknown>;
  const target = decideTarget(config, { cwd: io.cwd, home: options.home ?? homedir(), env: io.env });
  if (!target.ok) return failed(io, target.error);
  const work = decideWork(
    spec.command && expandSetting(spec.command, io.env),
    spec.script && expandSetting(spec.script, io.env),
    target.value.shell,
  );
  if (!work.ok) return failed(io, work.error);
  let connect: Connect;
  let jump: Connect | undefined;
  try {
    const knownHosts =
      target.value.knownHosts === undefined ? undefined : await readKnownHosts(target.value.knownHosts);
    connect = await connectConfig(target.value, target.value, knownHosts);
    const { bastion } = target.value;
    jump = bastion === undefined ? undefined : await connectConfig(bastion, target.value, knownHosts, 'bastion ');
  } catch (error) {
    return failed(io, message(error));
  }
  if (io.signal.aborted) return failed(io, 'stopped before connecting');
  const stop = {
    ...DEFAULT_STOP,
    ...spec.stop,
    ...(options.stopGraceMs === undefined ? {} : { graceMs: options.stopGraceMs }),
  };
  return new Session({
    target: target.value,
    connect,
    jump,
    work: wrapRemote(work.value, stop),
    io,
    graceMs: stop.graceMs,
  }).run();
}

interface Connect {
  readonly hop: SshHop;
  /** `bastion ` for the jump host, empty for the target: how errors name the host. */
  readonly label: string;
  readonly config: ConnectConfig;
  /** Why the host key was refused, once the server presented one that failed the check. */
  readonly refusal: { reason?: string };
}

/**
 * What one login needs (the target's, or the jump host's): its key from a file, and the known
 * hosts, which the bastion is checked against too, as Dagu checks it.
 */
async function connectConfig(
  hop: SshHop,
  target: SshTarget,
  knownHosts: string | undefined,
  label = '',
): Promise<Connect> {
  const refusal: { reason?: string } = {};
  const hostVerifier = (key: Buffer): boolean => {
    const verdict = checkHostKey(knownHosts ?? '', hop.host, hop.port, key);
    if (!verdict.ok) refusal.reason = verdict.reason;
    return verdict.ok;
  };
  const config: ConnectConfig = {
    host: hop.host,
    port: hop.port,
    username: hop.user,
    ...(await credentials(hop.auth).catch((error: unknown) => Promise.reject(new Error(`${label}${message(error)}`)))),
    ...(knownHosts === undefined ? {} : { hostVerifier }),
    readyTimeout: target.timeoutMs,
  };
  return { hop, label, config, refusal };
}

async function readKnownHosts(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(
      `strictHostKey is on, but known_hosts file ${path} cannot be read (${message(error)}); name one with knownHostFile or set strictHostKey: false`,
      { cause: error },
    );
  }
}

async function credentials(auth: SshAuth): Promise<Pick<ConnectConfig, 'privateKey' | 'password'>> {
  switch (auth.kind) {
    case 'password':
      return { password: auth.password };
    case 'keyText':
      return { privateKey: auth.text };
    case 'keyFile':
      return {
        privateKey: await readFile(auth.path).catch((error: unknown) =>
          Promise.reject(new Error(`key ${auth.path} cannot be read: ${message(error)}`)),
        ),
      };
    case 'defaultKeys':
      for (const path of auth.paths) {
        const key = await readFile(path).catch(() => undefined);
        if (key !== undefined) return { privateKey: key };
      }
      throw new Error(`no key, password or default key (${auth.paths.join(', ')}) to log in with`);
  }
}

/** One connection (through the jump host, when there is one) running one remote command, from connect to exit status. */
class Session {
  private readonly client = new Client();
  private readonly bastion?: Client;
  private channel?: ClientChannel;
  private stopped = false;

  private readonly target: SshTarget;
  private readonly connect: Connect;
  private readonly jump: Connect | undefined;
  private readonly work: WrappedWork;
  private readonly io: StepIO;
  private readonly graceMs: number;

  constructor(parts: {
    target: SshTarget;
    connect: Connect;
    jump: Connect | undefined;
    work: WrappedWork;
    io: StepIO;
    graceMs: number;
  }) {
    this.target = parts.target;
    this.connect = parts.connect;
    this.jump = parts.jump;
    if (parts.jump !== undefined) this.bastion = new Client();
    this.work = parts.work;
    this.io = parts.io;
    this.graceMs = parts.graceMs;
  }

  run(): Promise<number> {
    const { client, bastion, io } = this;
    return new Promise<number>((resolve) => {
      let settled = false;
      const done = (code: number): void => {
        if (settled) return;
        settled = true;
        io.signal.removeEventListener('abort', onStop);
        client.end();
        bastion?.end();
        resolve(code);
      };
      const onStop = (): void => {
        this.stop();
      };
      io.signal.addEventListener('abort', onStop, { once: true });
      client.on('error', (error) => {
        done(failed(io, this.connectError(this.connect, error)));
      });
      client.on('ready', () => {
        this.exec(done);
      });
      if (bastion === undefined || this.jump === undefined) {
        client.connect(this.connect.config);
        return;
      }
      const jump = this.jump;
      bastion.on('error', (error) => {
        done(failed(io, this.connectError(jump, error)));
      });
      // The jump host opens a TCP channel to the target (a direct-tcpip request, as ssh -J
      // does), and the login to the target runs over it: the target's key never leaves here.
      bastion.on('ready', () => {
        bastion.forwardOut('127.0.0.1', 0, this.target.host, this.target.port, (error, stream) => {
          if (error !== undefined) {
            done(
              failed(io, `the bastion cannot reach ${this.target.host}:${String(this.target.port)}: ${error.message}`),
            );
            return;
          }
          client.connect({ ...this.connect.config, sock: stream });
        });
      });
      bastion.connect(jump.config);
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
        else
          done(
            failed(
              io,
              this.stopped
                ? 'stopped; the remote side ended without an exit status'
                : 'the session ended without an exit status',
            ),
          );
      });
      channel.pipe(io.stdout, { end: false });
      channel.stderr.pipe(io.stderr, { end: false });
      // No end: the open stdin is the wrapper's lifeline, ended by a stop or a lost connection.
      if (work.stdin !== '') channel.write(work.stdin);
      if (io.signal.aborted) this.stop();
    });
  }

  /**
   * Ending stdin is the whole stop: the wrapper on the host signals the command's process
   * group, which works for root logins too, where OpenSSH refuses "signal" requests (and where
   * it honours them, sending one as well would deliver the signal twice). The connection is
   * closed last, in case the host never answers; that ends the lifeline all the same.
   */
  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const { channel, client } = this;
    if (channel === undefined) {
      client.end();
      this.bastion?.end();
      return;
    }
    channel.end();
    const giveUp = setTimeout(() => {
      client.end();
    }, this.graceMs + 2_000);
    giveUp.unref();
    channel.once('close', () => {
      clearTimeout(giveUp);
    });
  }

  private connectError(connect: Connect, error: Error): string {
    const { host, port, user } = connect.hop;
    // ssh2 reports a refused host key without the reason; the verifier kept it.
    const { reason } = connect.refusal;
    if (reason !== undefined)
      return `${connect.label}host key refused (strictHostKey, ${this.target.knownHosts ?? ''}): ${reason}`;
    return `cannot connect to ${connect.label}${user}@${host}:${String(port)}: ${error.message}`;
  }
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
