/**
 * Act, when the run's status write fails: a refusal that will not pass by retrying (a size
 * limit, an invalid status, an admission policy), or any failure but a conflict while the run
 * is being stopped, ends the run instead of retrying the same write for ever (status-refused.ts
 * says with what). Its attempts are stopped first, so that an operator killed halfway finds the
 * run unfinished, decides again, is refused again and comes back here; then the largest ending
 * status that the API takes is written, else the end is recorded in an annotation
 * (core/resources/ended.ts); then a Warning Event says why. A conflict or a refusal that may
 * pass (a server error, throttling) is thrown on: the reconcile retries with backoff.
 */
import { apiErrorMessage, refusalLimit, writeFailure } from '../../../core/kube/errors.ts';
import type { Informer } from '../../../core/kube/informer.ts';
import type { Clock } from '../../../core/kube/time.ts';
import { errorMessage, type Logger } from '../../../core/log.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import type { Decision, RunInput } from '../decide/engine.ts';
import type { PodWriter } from '../shared/pod-writer.ts';
import { runKey } from '../ref.ts';
import { phaseEnded } from '../decide/work.ts';
import { endedStatuses, endToRecord, refusalError, type RefusedWrite } from '../decide/status-refused.ts';
import type { RunWriter } from '../shared/status-writer.ts';

export interface RunEnderDeps {
  readonly runs: Informer<DagRunResource>;
  readonly writer: RunWriter;
  readonly pods: PodWriter;
  readonly clock: Clock;
  readonly log: Logger;
}

/** How the end was recorded: which candidate status, the annotation, or not at all. */
type Recorded = 'steps' | 'progress' | 'annotation' | 'conflict' | 'nothing';

const RECORDED: Record<Recorded, string> = {
  steps: "the status keeps each step's name and status only",
  progress: 'the status keeps the progress only',
  annotation: 'no status could be written, so the end is recorded in the kubedag.io/ended annotation',
  conflict: 'the run changed meanwhile; it is decided again',
  nothing: 'not even the kubedag.io/ended annotation could be written; the operator keeps trying',
};

export class RunEnder {
  private readonly deps: RunEnderDeps;
  /** Runs already warned about, with how their end was recorded: one Warning and one log line per outcome. */
  private readonly warned = new Map<string, Recorded>();

  constructor(deps: RunEnderDeps) {
    this.deps = deps;
  }

  /** After `decision.status` failed to be written with `error`: ends the run if retrying cannot help, else throws `error`. */
  async afterFailedWrite(run: DagRunResource, input: RunInput, decision: Decision, error: unknown): Promise<void> {
    const failure = writeFailure(error);
    const stopping = input.stop || decision.status.endReason === 'stopped';
    if (failure === 'conflict' || (failure === 'wait' && !stopping)) throw error;
    const refusal: RefusedWrite = { limit: refusalLimit(error), message: apiErrorMessage(error), stopping };
    await this.stopAttempts(run, input, decision);
    const recorded = await this.record(run, decision, refusal);
    this.warn(run, refusal, recorded);
    if (recorded === 'nothing') throw error;
  }

  /**
   * Every attempt that may still run: the live Pods and child runs the snapshot shows, and
   * those this very act launched (not cached yet). A stopped Pod ends within its grace period;
   * the log archiver archives it and, the run being finished, deletes it.
   */
  private async stopAttempts(run: DagRunResource, input: RunInput, decision: Decision): Promise<void> {
    const namespace = run.metadata?.namespace ?? '';
    const live = input.pods
      .filter((p) => p.report === undefined && !phaseEnded(p.phase) && !p.deleting)
      .map((p) => p.name);
    const children = new Set(decision.launch.filter((l) => l.step.call !== undefined).map((l) => l.pod));
    const pods = new Set([...live, ...decision.launch.map((l) => l.pod)]);
    for (const name of pods) {
      if (children.has(name) || this.deps.runs.get(namespace, name) !== undefined)
        await this.deps.writer.requestStop(namespace, name);
      else await this.deps.pods.stop(namespace, name);
    }
  }

  private async record(run: DagRunResource, decision: Decision, refusal: RefusedWrite): Promise<Recorded> {
    const now = this.deps.clock.now();
    const [steps, progress] = endedStatuses(decision.status, refusal, now);
    for (const [kind, status] of [
      ['steps', steps],
      ['progress', progress],
    ] as const) {
      if (status === undefined) continue;
      try {
        return (await this.deps.writer.writeStatus(run, status)) ? kind : 'conflict';
      } catch (error) {
        const failure = writeFailure(error);
        if (failure === 'conflict') return 'conflict';
        if (failure === 'wait' && !refusal.stopping) throw error;
        this.deps.log.debug(
          { run: runKey(run), candidate: kind, err: apiErrorMessage(error) },
          'a smaller ending status was refused too',
        );
      }
    }
    try {
      await this.deps.writer.recordEnd(run, endToRecord(decision.status, refusal, now));
      return 'annotation';
    } catch (error) {
      this.deps.log.error(
        { run: runKey(run), err: errorMessage(error) },
        "the run's end could not be recorded in its annotation either",
      );
      return 'nothing';
    }
  }

  private warn(run: DagRunResource, refusal: RefusedWrite, recorded: Recorded): void {
    const key = runKey(run);
    if (recorded === 'conflict' || this.warned.get(key) === recorded) return;
    this.warned.set(key, recorded);
    // Bounded: an entry is only needed while the run is retried, which is rare.
    if (this.warned.size > 1000) this.warned.delete(this.warned.keys().next().value ?? '');
    const message = `${refusalError(refusal)}; the run ${refusal.stopping ? 'was canceled' : 'failed'}: ${RECORDED[recorded]}`;
    this.deps.log.warn(
      { run: key, limit: refusal.limit, recorded, err: refusal.message },
      "the run's status was refused; the run was ended",
    );
    this.deps.writer.event(run, refusal.stopping ? 'StopWithoutStatus' : 'StatusRefused', message, true);
  }
}
