/**
 * Runs the Pods bound to this node: init containers in order, then the containers; reports
 * status; stops them gracefully on deletion; and, after an agent restart, fails the Pods whose
 * processes the previous agent may have started instead of starting them again.
 *
 * Keyed by Pod UID and level-triggered: `reconcile` looks at the Pod as it is now and at what
 * this agent is running, and does the one thing that is missing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../core/kube/errors.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import type { Clock } from '../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { ConfigError, containerEnv, materialiseVolume, type Sources } from './environment.ts';
import type { Ledger } from './ledger.ts';
import { readLogLines } from './logs.ts';
import { launch, mountNamespacesAvailable, type Mount, type RunningContainer } from './runtime.ts';
import { deadlineIn, killRun, newRun, stopRun, type PodRun } from './run.ts';
import { terminationReason, type ContainerPhase, type ContainerRecord } from './status.ts';
import { StatusWriter } from './status-writer.ts';

export interface PodManagerOptions {
  readonly node: string;
  readonly api: CoreV1Api;
  readonly stateDir: string;
  readonly ledger: Ledger;
  readonly sources: Sources;
  /** PATH given to containers that set none: the host is the image. */
  readonly hostPath: string;
  /** Start and end times, deadlines and the times in status and logs come from here. */
  readonly clock: Clock;
  readonly logger: Logger;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);
const stopping = (run: PodRun): boolean => run.stopping;

export class PodManager {
  private readonly options: PodManagerOptions;
  private readonly runs = new Map<string, PodRun>();
  private readonly deleting = new Set<string>();
  private readonly status: StatusWriter;

  constructor(options: PodManagerOptions) {
    this.options = options;
    this.status = new StatusWriter({ api: options.api, clock: options.clock, logger: options.logger });
  }

  /** Pod UIDs this agent (or an earlier one) started, from the state directory. */
  startedBefore(): string[] {
    const dir = join(this.options.stateDir, 'pods');
    return existsSync(dir) ? readdirSync(dir).filter((uid) => existsSync(join(dir, uid, 'started'))) : [];
  }

  /** Kills processes an earlier agent left behind; their Pods are failed on reconcile. */
  killLeftovers(): void {
    for (const uid of this.startedBefore()) {
      for (const [container, pid] of Object.entries(this.readPids(uid))) {
        try {
          process.kill(-pid, 'SIGKILL');
        } catch {
          continue;
        }
        const [namespace = '', name = ''] = readFileSync(this.sandbox(uid, 'started'), 'utf8').split('/');
        this.options.ledger.record({ event: 'kill-on-restart', podUid: uid, namespace, pod: name, container, restartCount: 0, pid });
        this.options.logger.warn({ pod: `${namespace}/${name}`, container, pid }, 'killed a process an earlier agent left running');
      }
      writeFileSync(this.sandbox(uid, 'pids.json'), '{}');
    }
  }

  /** Does what the Pod needs now; asks to be called again when a deadline is due. */
  async reconcile(pod: V1Pod): Promise<WorkResult | undefined> {
    const uid = pod.metadata?.uid ?? '';
    const run = this.runs.get(uid);
    if (pod.metadata?.deletionTimestamp !== undefined) {
      await this.remove(pod, run);
      return undefined;
    }
    if (run !== undefined) return this.enforceDeadline(pod, run);
    if (TERMINAL.has(pod.status?.phase ?? '')) return undefined;
    if (existsSync(this.sandbox(uid, 'started'))) {
      await this.status.failRecovered(pod);
      return undefined;
    }
    return this.enforceDeadline(pod, this.start(pod));
  }

  /** Where a container's log is, and whether it may still grow (for `follow`). */
  logOf(namespace: string, name: string, container: string, previous: boolean): { path: string; live: () => boolean } | undefined {
    const run = [...this.runs.values()].find((r) => r.namespace === namespace && r.name === name);
    const record = run?.records.get(container);
    if (run === undefined || record === undefined) return undefined;
    const attempt = record.restartCount - (previous ? 1 : 0);
    if (attempt < 0) return undefined;
    return { path: this.sandbox(run.uid, `${container}-${String(attempt)}.log`), live: () => !previous && run.running.has(container) };
  }

  /** A Pod removed without graceful deletion (force delete): its processes are killed. */
  forget(uid: string): void {
    const run = this.runs.get(uid);
    if (run === undefined) return;
    killRun(run);
    void run.done.then(() => this.runs.delete(uid));
  }

  /** Stops every Pod process at agent shutdown, without touching the API. */
  async shutdown(): Promise<void> {
    for (const run of this.runs.values()) killRun(run);
    await Promise.all([...this.runs.values()].map((run) => run.done));
  }

  private sandbox(uid: string, ...parts: string[]): string {
    return join(this.options.stateDir, 'pods', uid, ...parts);
  }

  private readPids(uid: string): Record<string, number> {
    try {
      return JSON.parse(readFileSync(this.sandbox(uid, 'pids.json'), 'utf8')) as Record<string, number>;
    } catch {
      return {};
    }
  }

  private writePids(run: PodRun): void {
    writeFileSync(this.sandbox(run.uid, 'pids.json'), JSON.stringify(Object.fromEntries([...run.running].map(([name, c]) => [name, c.pid]))));
  }

  private start(pod: V1Pod): PodRun {
    const uid = pod.metadata?.uid ?? '';
    // Recorded before any process exists: after a crash, "started" means "may have run".
    mkdirSync(this.sandbox(uid), { recursive: true });
    writeFileSync(this.sandbox(uid, 'started'), `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
    const run = newRun(pod, this.options.clock.now(), this.options.logger);
    this.runs.set(uid, run);
    run.log.info('starting');
    run.done = this.runPod(pod, run).catch((error: unknown) => {
      run.log.error({ error: errorMessage(error) }, 'Pod run failed');
    });
    return run;
  }

  private async runPod(pod: V1Pod, run: PodRun): Promise<void> {
    // Status goes out in order but does not hold up the containers, as with the kubelet.
    void this.status.write(run);
    const mounts = await this.prepareVolumes(pod, run);
    if (mounts === undefined) return;
    for (const container of pod.spec?.initContainers ?? []) {
      await this.runContainer(pod, run, container, mounts);
      const phase = run.records.get(container.name)?.phase;
      if (run.stopping || phase?.kind !== 'terminated' || phase.exitCode !== 0) return this.status.write(run);
    }
    await Promise.all((pod.spec?.containers ?? []).map((container) => this.runContainer(pod, run, container, mounts)));
    await this.status.write(run);
  }

  /** Volumes as directories; a missing Secret or ConfigMap is retried like the kubelet does. */
  private async prepareVolumes(pod: V1Pod, run: PodRun): Promise<Map<string, string> | undefined> {
    for (;;) {
      try {
        const dirs = new Map<string, string>();
        for (const volume of pod.spec?.volumes ?? []) dirs.set(volume.name, await materialiseVolume(pod, volume, this.sandbox(run.uid, 'volumes', volume.name), this.options.sources));
        return dirs;
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        this.setWaiting(run, 'CreateContainerConfigError', error.message);
        await this.status.write(run);
        await sleep(2000);
        if (run.stopping) return undefined;
      }
    }
  }

  private setWaiting(run: PodRun, reason: string, message: string): void {
    for (const [name, record] of run.records) if (record.phase.kind === 'waiting') run.records.set(name, { ...record, phase: { kind: 'waiting', reason, message } });
  }

  private async runContainer(pod: V1Pod, run: PodRun, container: V1Container, volumes: ReadonlyMap<string, string>): Promise<void> {
    const policy = pod.spec?.restartPolicy ?? 'Always';
    for (let attempt = 0; !run.stopping; attempt += 1) {
      const exitCode = await this.runOnce(pod, run, container, volumes, attempt);
      const again = policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
      // Read through a call: `stopping` changes while this loop awaits.
      if (!again || stopping(run)) return;
      await sleep(Math.min(1000 * 2 ** attempt, 10_000));
    }
  }

  private async runOnce(pod: V1Pod, run: PodRun, container: V1Container, volumes: ReadonlyMap<string, string>, restartCount: number): Promise<number> {
    const record = run.records.get(container.name) as ContainerRecord;
    const log = run.log.child({ container: container.name });
    const argv = [...(container.command ?? []), ...(container.args ?? [])];
    if ((container.command ?? []).length === 0) {
      return this.startError(log, run, record, restartCount, 'container has no command: the node agent runs commands on the host and does not use the image entrypoint');
    }
    let started: RunningContainer;
    const logPath = this.sandbox(run.uid, `${container.name}-${String(restartCount)}.log`);
    try {
      const env = await this.environment(pod, run, container, log);
      if (env === undefined) return 0;
      started = await launch({ argv, env, workingDir: container.workingDir, mounts: this.mountsOf(container, volumes, run), logPath, mountNamespace: mountNamespacesAvailable(), clock: this.options.clock });
    } catch (error) {
      return this.startError(log, run, record, restartCount, errorMessage(error));
    }
    run.running.set(container.name, started);
    this.writePids(run);
    this.options.ledger.record({ event: 'start', podUid: run.uid, namespace: run.namespace, pod: run.name, container: container.name, restartCount, pid: started.pid });
    log.info({ pid: started.pid, restartCount }, 'container started');
    run.records.set(container.name, { ...record, restartCount, phase: { kind: 'running', startedAt: started.startedAt } });
    void this.status.write(run);
    const exit = await started.exited;
    run.running.delete(container.name);
    this.writePids(run);
    this.options.ledger.record({ event: 'exit', podUid: run.uid, namespace: run.namespace, pod: run.name, container: container.name, restartCount, pid: started.pid, exitCode: exit.exitCode });
    log.info({ exitCode: exit.exitCode, restartCount }, 'container exited');
    const message = await this.terminationMessage(container, run, logPath, exit.exitCode);
    return this.finish(run, record, restartCount, {
      kind: 'terminated',
      exitCode: exit.exitCode,
      reason: terminationReason(exit.exitCode),
      ...(message === undefined ? {} : { message }),
      startedAt: started.startedAt,
      finishedAt: exit.finishedAt,
    });
  }

  /** The container's environment; a missing Secret or ConfigMap key is waited for, not fatal. */
  private async environment(pod: V1Pod, run: PodRun, container: V1Container, log: Logger): Promise<Record<string, string> | undefined> {
    for (;;) {
      try {
        return await containerEnv(pod, container, this.options.sources, this.options.hostPath);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        const record = run.records.get(container.name) as ContainerRecord;
        run.records.set(container.name, { ...record, phase: { kind: 'waiting', reason: 'CreateContainerConfigError', message: error.message } });
        log.debug({ reason: error.message }, 'waiting for the container configuration');
        await this.status.write(run);
        await sleep(2000);
        if (stopping(run)) return undefined;
      }
    }
  }

  private async finish(run: PodRun, record: ContainerRecord, restartCount: number, phase: Extract<ContainerPhase, { kind: 'terminated' }>): Promise<number> {
    run.records.set(record.name, { ...record, restartCount, phase });
    await this.status.write(run);
    return phase.exitCode;
  }

  /** A container that could not be started ends at once, as the runtime reports it. */
  private startError(log: Logger, run: PodRun, record: ContainerRecord, restartCount: number, message: string): Promise<number> {
    log.warn({ reason: message }, 'container could not start');
    const now = this.options.clock.now();
    return this.finish(run, record, restartCount, { kind: 'terminated', exitCode: 128, reason: 'StartError', message, startedAt: now, finishedAt: now });
  }

  /** The container's volume mounts, plus its termination-log file where it writes a message. */
  private mountsOf(container: V1Container, volumes: ReadonlyMap<string, string>, run: PodRun): Mount[] {
    const mounts = (container.volumeMounts ?? []).flatMap((m) => {
      const hostPath = volumes.get(m.name);
      return hostPath === undefined ? [] : [{ hostPath: m.subPath === undefined ? hostPath : join(hostPath, m.subPath), mountPath: m.mountPath, readOnly: m.readOnly === true }];
    });
    const messageFile = this.sandbox(run.uid, `${container.name}.termination-log`);
    writeFileSync(messageFile, '');
    return [...mounts, { hostPath: messageFile, mountPath: container.terminationMessagePath ?? '/dev/termination-log', readOnly: false, file: true }];
  }

  /** The message file, else (FallbackToLogsOnError, on failure) the end of the log. */
  private async terminationMessage(container: V1Container, run: PodRun, logPath: string, exitCode: number): Promise<string | undefined> {
    const written = readFileSync(this.sandbox(run.uid, `${container.name}.termination-log`), 'utf8').slice(0, 4096);
    if (written !== '') return written;
    if (container.terminationMessagePolicy !== 'FallbackToLogsOnError' || exitCode === 0) return undefined;
    const lines = (await readLogLines(logPath)).slice(-80).map((l) => l.text);
    const text = lines.join('\n');
    return text === '' ? undefined : text.slice(-2048);
  }

  /**
   * `activeDeadlineSeconds`, as the kubelet enforces it: past the deadline the containers are
   * stopped like on deletion (SIGTERM, grace, SIGKILL) but the Pod stays, Failed with reason
   * DeadlineExceeded, so its logs can still be read.
   */
  private async enforceDeadline(pod: V1Pod, run: PodRun): Promise<WorkResult | undefined> {
    if (run.stopping || run.deadline !== undefined) return undefined;
    const due = deadlineIn(pod, run.startTime, this.options.clock.now());
    if (due === undefined) return undefined;
    // Not yet: the work queue brings the Pod back when it is due.
    if (due > 0) return { requeueAfterMs: due };
    run.deadline = 'DeadlineExceeded';
    run.log.info({ activeDeadlineSeconds: pod.spec?.activeDeadlineSeconds }, 'deadline exceeded; stopping the containers');
    await stopRun(run, pod.spec?.terminationGracePeriodSeconds ?? 30);
    await this.status.write(run);
    return undefined;
  }

  /** Graceful deletion: SIGTERM, the grace period, SIGKILL; then the Pod object goes. */
  private async remove(pod: V1Pod, run: PodRun | undefined): Promise<void> {
    const uid = pod.metadata?.uid ?? '';
    if (this.deleting.has(uid)) return;
    this.deleting.add(uid);
    try {
      if (run !== undefined) {
        const grace = pod.metadata?.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
        run.log.info({ gracePeriodSeconds: grace }, 'deleted; stopping the containers');
        await stopRun(run, grace);
      }
      await this.options.api
        // With a body, kube-apiserver reads delete options from it alone: the grace period goes there.
        .deleteNamespacedPod({ name: pod.metadata?.name ?? '', namespace: pod.metadata?.namespace ?? '', body: { gracePeriodSeconds: 0, preconditions: { uid } } })
        .catch((error: unknown) => {
          // Gone already, or the name now holds another Pod (the uid precondition failed).
          if (!isNotFound(error) && !isConflict(error)) throw error;
        });
      this.runs.delete(uid);
    } finally {
      this.deleting.delete(uid);
    }
  }
}
