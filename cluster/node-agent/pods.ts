/**
 * Runs the Pods bound to this node: volumes first, then init containers in order, then the
 * containers; reports status; stops them gracefully on deletion; cleans up their disk once
 * they finish or are gone; and, after an agent restart, fails the Pods whose processes the
 * previous agent may have started instead of starting them again.
 *
 * Keyed by Pod UID and level-triggered: `reconcile` looks at the Pod as it is now and at what
 * this agent is running, and does the one thing that is missing.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { isConflict, isNotFound } from '../../core/kube/errors.ts';
import type { WorkResult } from '../../core/kube/queue.ts';
import type { Clock } from '../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../core/log.ts';
import { ContainerRunner, type RuntimeContext } from './containers.ts';
import { unenforced, type Abilities } from './enforcement.ts';
import { ConfigError, type Sources } from './environment.ts';
import type { ExecTarget } from './exec.ts';
import { recordEvent } from '../events.ts';
import type { Ledger } from './ledger.ts';
import { applyOwnership } from './ownership.ts';
import { housekeeping, PodDirs } from './pod-dirs.ts';
import { deadlineIn, killRun, newRun, stopRun, type PodRun } from './run.ts';
import { StatusWriter } from './status-writer.ts';
import { prepareVolume, VolumeNotReady, type PreparedVolume } from './volumes.ts';

export interface PodManagerOptions {
  readonly node: string;
  readonly api: CoreV1Api;
  readonly stateDir: string;
  readonly ledger: Ledger;
  readonly sources: Sources;
  readonly runtime: RuntimeContext;
  readonly abilities: Abilities;
  /** The Pod of that name bound to this node, as the agent's cache has it now. */
  readonly lookup: (namespace: string, name: string) => V1Pod | undefined;
  /** Start and end times, deadlines and the times in status and logs come from here. */
  readonly clock: Clock;
  readonly logger: Logger;
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

export class PodManager {
  private readonly options: PodManagerOptions;
  private readonly runs = new Map<string, PodRun>();
  /** Pods whose run has not ended: their directories are in use. */
  private readonly active = new Set<string>();
  private readonly deleting = new Set<string>();
  private readonly status: StatusWriter;
  private readonly dirs: PodDirs;
  private readonly containers: ContainerRunner;

  constructor(options: PodManagerOptions) {
    this.options = options;
    this.status = new StatusWriter({ api: options.api, clock: options.clock, logger: options.logger });
    this.dirs = new PodDirs(options.stateDir);
    this.containers = new ContainerRunner({
      dirs: this.dirs,
      ledger: options.ledger,
      status: this.status,
      sources: options.sources,
      runtime: options.runtime,
      clock: options.clock,
      savePids: (run) => {
        this.writePids(run);
      },
    });
  }

  /** Pod UIDs this agent (or an earlier one) started, from the state directory. */
  startedBefore(): string[] {
    return this.dirs.list().filter((uid) => existsSync(this.dirs.of(uid, 'started')));
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
        const [namespace = '', name = ''] = readFileSync(this.dirs.of(uid, 'started'), 'utf8').split('/');
        this.options.ledger.record({
          event: 'kill-on-restart',
          podUid: uid,
          namespace,
          pod: name,
          container,
          restartCount: 0,
          pid,
        });
        this.options.logger.warn(
          { pod: `${namespace}/${name}`, container, pid },
          'killed a process an earlier agent left running',
        );
      }
      writeFileSync(this.dirs.of(uid, 'pids.json'), '{}');
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
    if (existsSync(this.dirs.of(uid, 'started'))) {
      await this.status.failRecovered(pod);
      return undefined;
    }
    return this.enforceDeadline(pod, this.start(pod));
  }

  /**
   * Where a container's log is, and whether it may still grow (for `follow`). A Pod this
   * agent did not run (it ran before a restart) is found on disk while its object exists.
   */
  logOf(
    namespace: string,
    name: string,
    container: string,
    previous: boolean,
  ): { path: string; live: () => boolean } | undefined {
    const run = [...this.runs.values()].find((r) => r.namespace === namespace && r.name === name);
    const back = previous ? 1 : 0;
    if (run === undefined) {
      const uid = this.options.lookup(namespace, name)?.metadata?.uid;
      const attempts = uid === undefined ? [] : this.dirs.attempts(uid, container);
      const attempt = attempts[attempts.length - 1 - back];
      return uid === undefined || attempt === undefined
        ? undefined
        : { path: this.dirs.log(uid, container, attempt), live: () => false };
    }
    const record = run.records.get(container);
    if (record === undefined || record.restartCount - back < 0) return undefined;
    return {
      path: this.dirs.log(run.uid, container, record.restartCount - back),
      live: () => !previous && run.running.has(container),
    };
  }

  /**
   * Where an exec into a container goes, or why it cannot: with the kubelet's answers for a Pod
   * this node does not run and a container that is not running.
   */
  execTarget(ref: {
    namespace: string;
    pod: string;
    uid?: string;
    container: string;
  }): { target: ExecTarget } | { status: number; message: string } {
    const run = [...this.runs.values()].find(
      (r) => r.namespace === ref.namespace && r.name === ref.pod && (ref.uid === undefined || r.uid === ref.uid),
    );
    if (run === undefined) return { status: 404, message: 'pod does not exist' };
    if (!run.records.has(ref.container)) return { status: 404, message: `container not found ("${ref.container}")` };
    const target = run.exec.get(ref.container);
    if (target === undefined)
      return { status: 400, message: `container "${ref.container}" in pod "${ref.pod}" is not running` };
    return { target };
  }

  /** A Pod that is gone (deleted, or force-deleted): its processes are killed, its disk freed. */
  forget(uid: string): void {
    const run = this.runs.get(uid);
    if (run !== undefined) killRun(run);
    void (run?.done ?? Promise.resolve()).then(async () => {
      this.runs.delete(uid);
      await this.dirs.remove(uid);
    });
  }

  /**
   * Frees the disk of finished Pods and of Pods that are gone, from what is on disk and the
   * Pods bound to this node now (`pods` is read after the directories are listed).
   */
  async housekeep(pods: () => readonly V1Pod[]): Promise<void> {
    const dirs = this.dirs.list();
    const plan = housekeeping(
      dirs,
      pods().map((p) => ({ uid: p.metadata?.uid ?? '', terminal: TERMINAL.has(p.status?.phase ?? '') })),
      this.active,
    );
    for (const uid of plan.remove) await this.dirs.remove(uid);
    for (const uid of plan.trim) await this.dirs.trim(uid);
    if (plan.remove.length > 0)
      this.options.logger.info({ pods: plan.remove.length }, 'removed the directories of Pods that are gone');
  }

  /** Stops every Pod process at agent shutdown, without touching the API. */
  async shutdown(): Promise<void> {
    for (const run of this.runs.values()) killRun(run);
    await Promise.all([...this.runs.values()].map((run) => run.done));
  }

  private readPids(uid: string): Record<string, number> {
    try {
      return JSON.parse(readFileSync(this.dirs.of(uid, 'pids.json'), 'utf8')) as Record<string, number>;
    } catch {
      return {};
    }
  }

  private writePids(run: PodRun): void {
    writeFileSync(
      this.dirs.of(run.uid, 'pids.json'),
      JSON.stringify(Object.fromEntries([...run.running].map(([name, c]) => [name, c.pid]))),
    );
  }

  private start(pod: V1Pod): PodRun {
    const uid = pod.metadata?.uid ?? '';
    // Recorded before any process exists: after a crash, "started" means "may have run".
    mkdirSync(this.dirs.of(uid), { recursive: true });
    writeFileSync(this.dirs.of(uid, 'started'), `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`);
    const run = newRun(pod, this.options.clock.now(), this.options.logger);
    this.runs.set(uid, run);
    this.active.add(uid);
    run.log.info('starting');
    run.done = this.runPod(pod, run)
      .catch((error: unknown) => {
        run.log.error({ error: errorMessage(error) }, 'Pod run failed');
      })
      .finally(async () => {
        // Like the kubelet tearing down a terminated Pod's volumes: only logs stay.
        await this.dirs.trim(uid).catch((error: unknown) => {
          run.log.warn({ error: errorMessage(error) }, "could not remove the Pod's volumes");
        });
        this.active.delete(uid);
      });
    return run;
  }

  private async runPod(pod: V1Pod, run: PodRun): Promise<void> {
    // Status goes out in order but does not hold up the containers, as with the kubelet.
    void this.status.write(run);
    this.announceUnenforced(pod, run);
    const volumes = await this.prepareVolumes(pod, run);
    if (volumes === undefined) return;
    for (const container of pod.spec?.initContainers ?? []) {
      await this.containers.run(pod, run, container, volumes);
      const phase = run.records.get(container.name)?.phase;
      if (run.stopping || phase?.kind !== 'terminated' || phase.exitCode !== 0) return this.status.write(run);
    }
    await Promise.all(
      (pod.spec?.containers ?? []).map((container) => this.containers.run(pod, run, container, volumes)),
    );
    await this.status.write(run);
  }

  /** What this node cannot enforce for the Pod: an Event on it and a log line each, not a silent claim. */
  private announceUnenforced(pod: V1Pod, run: PodRun): void {
    for (const gap of unenforced(pod, this.options.abilities)) {
      run.log.warn({ reason: gap.reason }, gap.message);
      recordEvent(
        this.options.api,
        { apiVersion: 'v1', kind: 'Pod', ...pod },
        { type: 'Warning', ...gap },
        { component: 'kubelet', host: this.options.node },
        this.options.clock,
      ).catch((error: unknown) => {
        run.log.warn({ error: errorMessage(error) }, 'could not record an event');
      });
    }
  }

  /**
   * Volumes as directories, and the scratch directory. A missing Secret or ConfigMap is
   * retried as CreateContainerConfigError, an unbound claim as ContainerCreating, like the
   * kubelet does.
   */
  private async prepareVolumes(pod: V1Pod, run: PodRun): Promise<Map<string, PreparedVolume> | undefined> {
    this.prepareScratch(pod, run.uid);
    for (;;) {
      try {
        const prepared = new Map<string, PreparedVolume>();
        for (const volume of pod.spec?.volumes ?? [])
          prepared.set(
            volume.name,
            await prepareVolume(pod, volume, this.dirs.volume(run.uid, volume.name), this.options.sources),
          );
        return prepared;
      } catch (error) {
        if (!(error instanceof ConfigError || error instanceof VolumeNotReady)) throw error;
        this.setWaiting(
          run,
          error instanceof VolumeNotReady ? 'ContainerCreating' : 'CreateContainerConfigError',
          error.message,
        );
        await this.status.write(run);
        await sleep(error instanceof VolumeNotReady ? 1000 : 2000);
        if (run.stopping) return undefined;
      }
    }
  }

  /** The working directory of containers without workingDir: an emptyDir in all but name. */
  private prepareScratch(pod: V1Pod, uid: string): void {
    const scratch = this.dirs.scratch(uid);
    mkdirSync(scratch, { recursive: true });
    chmodSync(scratch, 0o777);
    const fsGroup = pod.spec?.securityContext?.fsGroup;
    if (fsGroup !== undefined) applyOwnership(scratch, fsGroup, false, 'Always');
  }

  private setWaiting(run: PodRun, reason: string, message: string): void {
    for (const [name, record] of run.records)
      if (record.phase.kind === 'waiting')
        run.records.set(name, { ...record, phase: { kind: 'waiting', reason, message } });
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
    run.log.info(
      { activeDeadlineSeconds: pod.spec?.activeDeadlineSeconds },
      'deadline exceeded; stopping the containers',
    );
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
        .deleteNamespacedPod({
          name: pod.metadata?.name ?? '',
          namespace: pod.metadata?.namespace ?? '',
          body: { gracePeriodSeconds: 0, preconditions: { uid } },
        })
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
