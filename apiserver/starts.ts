/**
 * Every way the API makes a run (start, enqueue, inline run and enqueue, reschedule) goes
 * through here: the contract's checks in the contract's order, then one DAGRun created with
 * its definition frozen (a dagRef run's in a segment written right after), so the operator has
 * nothing to fill in. Checks and create are
 * serialised per DAG name inside this server, so a burst of starts cannot all pass a
 * maxActiveRuns check that only one of them may pass.
 */
import { parseParamOverrides, type DagLoad } from '../core/dag/index.ts';
import { isAlreadyExists } from '../core/kube/errors.ts';
import { ANNOTATIONS, LABELS } from '../core/resources/constants.ts';
import { frozenReference } from '../core/resources/frozen.ts';
import { isActiveRun } from '../core/resources/queue.ts';
import { uuidv7, MAX_RUN_ID_LENGTH, RUN_ID_PATTERN } from '../core/resources/ids.ts';
import { dagRunResourceName, labelValue } from '../core/resources/names.ts';
import type { DagRunSpec } from '../core/resources/schemas.ts';
import type { Requester } from '../core/resources/requested-by.ts';
import type { Cache } from './cache.ts';
import { ApiError, rethrowAs } from './errors.ts';
import type { Writer } from './writer.ts';

export interface StartRequest {
  /** The DAG name the run is listed under. */
  readonly name: string;
  /** The DAG resource for file-based runs; undefined for inline runs. */
  readonly dagResource?: string;
  /** The DAG resource spec (DAG, `localDags`) frozen into the run. */
  readonly spec: Record<string, unknown>;
  readonly load: DagLoad;
  readonly params?: string;
  readonly dagRunId?: string;
  readonly singleton?: boolean;
  /** What a singleton conflict is called: `already_running` on start, `max_run_reached` inline. */
  readonly singletonCode: 'already_running' | 'max_run_reached';
  readonly enqueue?: boolean;
  readonly queue?: string;
  readonly trigger: NonNullable<DagRunSpec['trigger']>;
  /** The run a retry under a new id copies (recorded on the new run). */
  readonly retryOf?: string;
  /** Who asked: the run's `kubedag.io/started-by` (writer.ts). */
  readonly requestedBy: Requester;
}

export function checkRunId(dagRunId: string): void {
  if (dagRunId === '' || dagRunId.length > MAX_RUN_ID_LENGTH || !RUN_ID_PATTERN.test(dagRunId)) {
    throw new ApiError(
      'bad_request',
      `invalid dagRunId "${dagRunId}": 1-${String(MAX_RUN_ID_LENGTH)} characters of letters, digits, "-" and "_"`,
    );
  }
}

export function checkParams(params: string | undefined): void {
  if (params === undefined || params === '') return;
  const parsed = parseParamOverrides(params);
  if (parsed.error !== undefined) throw new ApiError('bad_request', `invalid params: ${parsed.error}`);
}

export class Starter {
  private readonly cache: Cache;
  private readonly writer: Writer;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(cache: Cache, writer: Writer) {
    this.cache = cache;
    this.writer = writer;
  }

  async start(request: StartRequest): Promise<{ dagRunId: string; queued: boolean }> {
    if (request.load.errors.length > 0)
      throw new ApiError(
        'bad_request',
        `the DAG has errors: ${request.load.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      );
    const dagRunId = request.dagRunId ?? uuidv7();
    checkRunId(dagRunId);
    checkParams(request.params);
    return this.serialised(request.name, async () => {
      this.checkCapacity(request, dagRunId);
      await this.create(request, dagRunId);
      return { dagRunId, queued: request.enqueue === true };
    });
  }

  private checkCapacity(request: StartRequest, dagRunId: string): void {
    const runs = this.cache.runIndex.runsOf(request.name);
    const resourceName = dagRunResourceName(request.name, dagRunId);
    if (
      this.cache.runIndex.run(request.name, dagRunId) !== undefined ||
      this.cache.runs.get(this.cache.namespace, resourceName) !== undefined
    ) {
      throw new ApiError('already_exists', `a run with id "${dagRunId}" of DAG "${request.name}" already exists`);
    }
    if (request.enqueue === true) return;
    const active = runs.filter(isActiveRun).length;
    if (request.singleton === true && active > 0)
      throw new ApiError(request.singletonCode, `DAG "${request.name}" is already running (singleton)`);
    const max = request.load.dag.maxActiveRuns;
    const limit = max < 0 ? Infinity : Math.max(1, max);
    if (active >= limit)
      throw new ApiError(
        'max_run_reached',
        `DAG "${request.name}" has ${String(active)} active runs; maxActiveRuns is ${String(limit)}`,
      );
  }

  private async create(request: StartRequest, dagRunId: string): Promise<void> {
    const name = dagRunResourceName(request.name, dagRunId);
    // An inline run's definition is its frozen one. A dagRef run's is frozen here, into a
    // segment its spec names from the start: the run runs the very definition checked above,
    // whatever happens to its DAG meanwhile (docs/decisions/2026-11-28-frozen-definition.md).
    const frozen =
      request.dagResource === undefined
        ? { definition: request.spec }
        : { dagRef: { name: request.dagResource }, frozenDefinition: frozenReference(name, request.load.dag) };
    const spec: DagRunSpec = {
      ...frozen,
      dagName: request.name,
      dagRunId,
      trigger: request.trigger,
      ...(request.params === undefined || request.params === '' ? {} : { params: request.params }),
      ...(request.enqueue === true ? { enqueue: true } : {}),
      ...(request.queue === undefined || request.queue === '' ? {} : { queue: request.queue }),
    };
    const metadata = {
      name,
      namespace: this.cache.namespace,
      labels: { [LABELS.dag]: labelValue(request.name), [LABELS.runId]: labelValue(dagRunId) },
      ...(request.retryOf === undefined ? {} : { annotations: { [ANNOTATIONS.retryOf]: request.retryOf } }),
    };
    await this.writer
      .createRun({ metadata, spec }, request.requestedBy, request.dagResource === undefined ? undefined : request.spec)
      .catch(
        rethrowAs(
          isAlreadyExists,
          () => new ApiError('already_exists', `a run with id "${dagRunId}" of DAG "${request.name}" already exists`),
        ),
      );
  }

  /** One check-and-create at a time per DAG name; others wait their turn. */
  private async serialised<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.locks.get(key) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(work);
    this.locks.set(key, mine);
    try {
      return await mine;
    } finally {
      if (this.locks.get(key) === mine) this.locks.delete(key);
    }
  }
}
