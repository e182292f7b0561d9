/**
 * Runs one container of a Pod, attempt after attempt as its restartPolicy says: configure it
 * (securityContext, environment, mounts; what the kubelet would refuse waits as
 * CreateContainerConfigError), build its sandbox, start it, record its start and end in the
 * ledger and its state for the Pod's status, and read its termination message.
 */
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import type { Clock } from '../../core/kube/time.ts';
import type { Cgroups, ContainerCgroup } from './cgroups.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { ConfigError, containerEnv, type Sources } from './environment.ts';
import type { Ledger } from './ledger.ts';
import { readLogLines } from './logs.ts';
import { containerLimits } from './quantity.ts';
import { killExecs, type ExecTarget } from './exec.ts';
import { containerMounts } from './mounts.ts';
import type { PodDirs } from './pod-dirs.ts';
import type { PodRun } from './run.ts';
import { containerArgv, launch, type RunningContainer } from './runtime.ts';
import { layerPaths, planSandbox, type SandboxMode, type VolumeMount } from './sandbox.ts';
import { hostView, prepareSandbox, removeLayer } from './sandbox-fs.ts';
import { containerSecurity, SecurityConfigError, setprivArgs, type ContainerSecurity } from './security.ts';
import { terminationReason, type ContainerPhase, type ContainerRecord } from './status.ts';
import type { StatusWriter } from './status-writer.ts';
import type { ImageUsers } from './users.ts';
import type { PreparedVolume } from './volumes.ts';

/** What the agent found out about this machine at start, and what it was told to hide. */
export interface RuntimeContext {
  readonly mode: SandboxMode;
  /** The agent is root: processes can be given the container's user, groups and capabilities. */
  readonly changeUser: boolean;
  readonly users: ImageUsers;
  readonly submounts: readonly string[];
  readonly hide: readonly string[];
  /** PATH given to containers that set none: the host is the image. */
  readonly hostPath: string;
  /** CPU and memory limits, where this machine lets the agent write cgroups. */
  readonly cgroups: Cgroups | undefined;
}

export interface ContainerRunnerOptions {
  readonly dirs: PodDirs;
  readonly ledger: Ledger;
  readonly status: StatusWriter;
  readonly sources: Sources;
  readonly runtime: RuntimeContext;
  readonly clock: Clock;
  /** Called whenever the run's set of processes changes: an agent restart must find them. */
  readonly savePids: (run: PodRun) => void;
}

interface Configured {
  readonly env: Record<string, string>;
  readonly security: ContainerSecurity;
  readonly mounts: VolumeMount[];
}

interface Prepared {
  readonly argv: string[];
  readonly cwd: string | undefined;
  readonly setupError?: string;
  readonly terminationLog: string;
  readonly cgroup?: ContainerCgroup;
  /** How an exec enters this container, but for the pid of its main process. */
  readonly exec: Omit<ExecTarget, 'pid' | 'processes'>;
}

// Read through a call: `stopping` changes while the loops here await.
const stopping = (run: PodRun): boolean => run.stopping;

export class ContainerRunner {
  private readonly options: ContainerRunnerOptions;

  constructor(options: ContainerRunnerOptions) {
    this.options = options;
  }

  /** Runs the container until it ends for good (restartPolicy) or the Pod is stopped. */
  async run(
    pod: V1Pod,
    run: PodRun,
    container: V1Container,
    volumes: ReadonlyMap<string, PreparedVolume>,
  ): Promise<void> {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    for (let attempt = 0; !stopping(run); attempt += 1) {
      const exitCode = await this.runOnce(pod, run, container, volumes, attempt);
      const again = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
      if (!again || stopping(run)) return;
      await sleep(Math.min(1000 * 2 ** attempt, 10_000));
    }
  }

  private async runOnce(
    pod: V1Pod,
    run: PodRun,
    container: V1Container,
    volumes: ReadonlyMap<string, PreparedVolume>,
    restartCount: number,
  ): Promise<number> {
    const record = run.records.get(container.name) as ContainerRecord;
    const log = run.log.child({ container: container.name });
    const argv = [...(container.command ?? []), ...(container.args ?? [])];
    if ((container.command ?? []).length === 0) {
      return this.startError(
        log,
        run,
        record,
        restartCount,
        'container has no command: the node agent runs commands on the host and does not use the image entrypoint',
      );
    }
    const logPath = this.options.dirs.log(run.uid, container.name, restartCount);
    let started: RunningContainer;
    let prepared: Prepared | undefined;
    try {
      const configured = await this.configure(pod, run, container, volumes, log);
      if (configured === undefined) return 0;
      prepared = this.prepare(run, container, configured, { attempt: restartCount, argv });
      started = await launch({
        argv: prepared.argv,
        env: configured.env,
        cwd: prepared.cwd,
        logPath,
        clock: this.options.clock,
        ...(prepared.setupError === undefined ? {} : { setupError: prepared.setupError }),
      });
    } catch (error) {
      prepared?.cgroup?.remove();
      return this.startError(log, run, record, restartCount, errorMessage(error));
    }
    const ledger = {
      podUid: run.uid,
      namespace: run.namespace,
      pod: run.name,
      container: container.name,
      restartCount,
      pid: started.pid,
    };
    run.running.set(container.name, started);
    const exec: ExecTarget = { ...prepared.exec, pid: started.pid, processes: new Set() };
    run.exec.set(container.name, exec);
    this.options.savePids(run);
    this.options.ledger.record({ event: 'start', ...ledger });
    log.info({ pid: started.pid, restartCount }, 'container started');
    run.records.set(container.name, {
      ...record,
      restartCount,
      phase: { kind: 'running', startedAt: started.startedAt },
    });
    void this.options.status.write(run);
    const exit = await started.exited;
    const oomKilled = prepared.cgroup?.oomKilled() === true;
    prepared.cgroup?.remove();
    run.running.delete(container.name);
    run.exec.delete(container.name);
    killExecs(exec);
    this.options.savePids(run);
    this.options.ledger.record({ event: 'exit', ...ledger, exitCode: exit.exitCode });
    log.info({ exitCode: exit.exitCode, restartCount }, 'container exited');
    if (exit.startError !== undefined) return this.startError(log, run, record, restartCount, exit.startError);
    const message = await terminationMessage(container, prepared.terminationLog, logPath, exit.exitCode);
    return this.finish(run, record, restartCount, {
      kind: 'terminated',
      exitCode: exit.exitCode,
      // Like containerd, which hears the kernel's OOM kill in the container's cgroup.
      reason: oomKilled ? 'OOMKilled' : terminationReason(exit.exitCode),
      ...(message === undefined ? {} : { message }),
      startedAt: started.startedAt,
      finishedAt: exit.finishedAt,
    });
  }

  /**
   * securityContext, environment and mounts. What the kubelet refuses (a missing Secret key,
   * runAsNonRoot with the root image user) is reported as CreateContainerConfigError and tried
   * again, as the kubelet does, until the Pod is stopped.
   */
  private async configure(
    pod: V1Pod,
    run: PodRun,
    container: V1Container,
    volumes: ReadonlyMap<string, PreparedVolume>,
    log: Logger,
  ): Promise<Configured | undefined> {
    for (;;) {
      try {
        const security = containerSecurity(pod, container, this.options.runtime.users);
        const env = await containerEnv(pod, container, this.options.sources, {
          path: this.options.runtime.hostPath,
          home: security.identity.home,
        });
        return { env, security, mounts: containerMounts(container, volumes, env) };
      } catch (error) {
        if (!(error instanceof ConfigError || error instanceof SecurityConfigError)) throw error;
        const record = run.records.get(container.name) as ContainerRecord;
        run.records.set(container.name, {
          ...record,
          phase: { kind: 'waiting', reason: 'CreateContainerConfigError', message: error.message },
        });
        log.debug({ reason: error.message }, 'waiting for the container configuration');
        await this.options.status.write(run);
        await sleep(2000);
        if (stopping(run)) return undefined;
      }
    }
  }

  /** The container attempt's own root (or, without a sandbox, its Pod's scratch directory). */
  private prepare(
    run: PodRun,
    container: V1Container,
    configured: Configured,
    { attempt, argv }: { attempt: number; argv: string[] },
  ): Prepared {
    const { dirs, runtime } = this.options;
    const layer = dirs.layer(run.uid, container.name, attempt);
    // Like a runtime replacing an exited container: the earlier attempt's root goes.
    if (attempt > 0) removeLayer(dirs.layer(run.uid, container.name, attempt - 1));
    const setpriv = runtime.changeUser ? setprivArgs(configured.security) : [];
    if (runtime.mode === 'none') return this.unsandboxed(run, container, { layer, setpriv, argv, env: configured.env });
    const plan = planSandbox(
      {
        layer,
        scratch: dirs.scratch(run.uid),
        mounts: configured.mounts,
        workingDir: container.workingDir,
        terminationMessagePath: container.terminationMessagePath,
        readOnlyRoot: configured.security.readOnlyRoot,
        hide: runtime.hide,
        submounts: runtime.submounts,
        upperOnTmpfs: runtime.mode === 'overlay-tmpfs',
        command: { name: argv[0] ?? '', searchPath: configured.env.PATH ?? '' },
      },
      hostView,
    );
    if (plan.executable === undefined) throw new Error(`exec: "${argv[0] ?? ''}": executable file not found in $PATH`);
    prepareSandbox(layer, plan, runtime.submounts);
    const cgroup = runtime.cgroups?.create(
      `${run.uid}-${container.name}-${String(attempt)}`,
      containerLimits(container.resources?.limits),
    );
    const wrapper = { mode: runtime.mode, layer, cwd: plan.cwd, setpriv, cgroups: cgroup?.procs ?? [] };
    const exec = { env: configured.env, cwd: plan.cwd, sandboxed: true, setpriv, cgroups: wrapper.cgroups };
    return {
      argv: containerArgv(wrapper, argv),
      cwd: undefined,
      setupError: layerPaths(layer).setupError,
      terminationLog: plan.terminationLog,
      exec,
      ...(cgroup === undefined ? {} : { cgroup }),
    };
  }

  /** No root of its own: the host's file system, the Pod's scratch directory (or a workingDir the host has). */
  private unsandboxed(
    run: PodRun,
    container: V1Container,
    { layer, setpriv, argv, env }: { layer: string; setpriv: string[]; argv: string[]; env: Record<string, string> },
  ): Prepared {
    mkdirSync(layer, { recursive: true });
    const workingDir = container.workingDir;
    const cwd =
      workingDir !== undefined && statSync(workingDir, { throwIfNoEntry: false })?.isDirectory() === true
        ? workingDir
        : this.options.dirs.scratch(run.uid);
    return {
      argv: containerArgv({ mode: 'none', layer, cwd, setpriv, cgroups: [] }, argv),
      cwd,
      terminationLog: layerPaths(layer).terminationLog,
      exec: { env, cwd, sandboxed: false, setpriv, cgroups: [] },
    };
  }

  private async finish(
    run: PodRun,
    record: ContainerRecord,
    restartCount: number,
    phase: Extract<ContainerPhase, { kind: 'terminated' }>,
  ): Promise<number> {
    run.records.set(record.name, { ...record, restartCount, phase });
    await this.options.status.write(run);
    return phase.exitCode;
  }

  /** A container that could not be started ends at once, as the runtime reports it. */
  private startError(
    log: Logger,
    run: PodRun,
    record: ContainerRecord,
    restartCount: number,
    message: string,
  ): Promise<number> {
    log.warn({ reason: message }, 'container could not start');
    const now = this.options.clock.now();
    return this.finish(run, record, restartCount, {
      kind: 'terminated',
      exitCode: 128,
      reason: 'StartError',
      message,
      startedAt: now,
      finishedAt: now,
    });
  }
}

/** The message file, else (FallbackToLogsOnError, on failure) the end of the log. */
async function terminationMessage(
  container: V1Container,
  file: string,
  logPath: string,
  exitCode: number,
): Promise<string | undefined> {
  const written = existsSync(file) ? readFileSync(file, 'utf8').slice(0, 4096) : '';
  if (written !== '') return written;
  if (container.terminationMessagePolicy !== 'FallbackToLogsOnError' || exitCode === 0) return undefined;
  const lines = (await readLogLines(logPath)).slice(-80).map((l) => l.text);
  const text = lines.join('\n');
  return text === '' ? undefined : text.slice(-2048);
}
