/**
 * What the run routes change: a rescheduled or retried run, a step's status edited. Each reads
 * the run, checks the request against it and writes through the cluster's writer or starter.
 */
import { randomUUID } from 'node:crypto';
import Type, { type Static } from 'typebox';
import type { DagLoad } from '../../core/dag/index.ts';
import { loadDagSpec } from '../../core/resources/dag.ts';
import { isConflict } from '../../core/kube/errors.ts';
import { stepStatusLabel } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { liveRunAt, runAt, runDefinition, type Cluster, type RunPath } from '../cluster.ts';
import { ApiError, rethrowAs } from '../errors.ts';
import { NAMES, requestBody } from '../schemas.ts';
import { isActiveRun } from '../../core/resources/queue.ts';
import { type Requester } from '../../core/resources/requested-by.ts';
import { checkRunId } from '../starts.ts';
import { runIdentity } from '../views/identity.ts';
import { isArchived } from '../archive-reads.ts';
import { NameTaken } from '../restore.ts';
import { HANDLER_RECORD_KEYS, statusRecords } from '../../core/resources/run-records.ts';

export const retryBody = requestBody(
  { dagRunId: Type.Optional(NAMES.dagRunId), stepName: Type.Optional(Type.String()) },
  {},
);
export const rescheduleBody = requestBody(
  { dagRunId: Type.Optional(NAMES.dagRunId), dagName: Type.Optional(NAMES.dagName) },
  {},
);

/** A step's address: the run's path and the step's name. */
type StepPath = RunPath & { readonly stepName: string };

/** A brand-new run from the original's stored definition and params: a singleton start. */
export async function reschedule(
  cluster: Cluster,
  original: DagRunResource,
  body: Static<typeof rescheduleBody>,
  requestedBy: Requester,
): Promise<{ dagRunId: string; queued: boolean }> {
  const spec = (await cluster.definitions.source(original)) ?? {};
  const id = runIdentity(original);
  return cluster.starter.start({
    name: body.dagName ?? id.name,
    ...(original.spec.dagRef === undefined ? {} : { dagResource: original.spec.dagRef.name }),
    spec,
    load: loadSpec(spec, id.name, body.dagName),
    ...(original.spec.params === undefined ? {} : { params: original.spec.params }),
    ...(body.dagRunId === undefined ? {} : { dagRunId: body.dagRunId }),
    singleton: true,
    singletonCode: 'already_running',
    trigger: 'api',
    requestedBy,
  });
}

function loadSpec(spec: Record<string, unknown>, fileName: string, name?: string): DagLoad {
  return loadDagSpec(spec, { fileName, ...(name === undefined ? {} : { name }) });
}

/** The step has a record (an archived run holds them all) or is a handler that ran. */
function checkStepOf(run: DagRunResource, step: string): void {
  if (!statusRecords(run.status).some((n) => n.name === step))
    throw new ApiError('not_found', `step "${step}" not found in run "${runIdentity(run).dagRunId}"`);
}

/** An archived run is checked as it is, and put back only for an edit that will be made. */
async function editable(cluster: Cluster, at: StepPath, found: DagRunResource, by: Requester): Promise<DagRunResource> {
  if (!isArchived(found)) return found;
  checkStepOf(found, at.stepName);
  return liveRunAt(cluster, at, by).catch(
    rethrowAs(
      (error) => error instanceof NameTaken,
      () => new ApiError('bad_request', 'the run changed meanwhile; read it and try again'),
    ),
  );
}

/** Only the node's status changes; the run status is not recomputed (edit, then retry). */
export async function setStepStatus(cluster: Cluster, at: StepPath, status: number, by: Requester): Promise<void> {
  const step = at.stepName;
  const found = await runAt(cluster, at);
  const r = await editable(cluster, at, found, by);
  const current = r.status ?? {};
  const handlers = HANDLER_RECORD_KEYS.filter((k) => current[k]?.name === step);
  // A sealed record is edited by giving the step a record in the status, which supersedes it.
  const recorded = (await cluster.records.expand(r)).status?.nodes?.find((n) => n.name === step);
  if (recorded === undefined && handlers.length === 0)
    throw new ApiError('not_found', `step "${step}" not found in run "${runIdentity(r).dagRunId}"`);
  if (isActiveRun(r))
    throw new ApiError('bad_request', `run "${runIdentity(r).dagRunId}" is active; edit its steps when it has ended`);
  const edit = <T extends { name: string; status: number; statusLabel: string }>(node: T): T =>
    node.name === step ? { ...node, status, statusLabel: stepStatusLabel(status) } : node;
  const inStatus = (current.nodes ?? []).some((n) => n.name === step);
  const nodes =
    inStatus || recorded === undefined ? (current.nodes ?? []).map(edit) : [...(current.nodes ?? []), edit(recorded)];
  const next = { ...current, nodes };
  for (const key of handlers) {
    const node = current[key];
    if (node !== undefined) next[key] = edit(node);
  }
  await cluster.writer
    .replaceRunStatus(r, next, by)
    .catch(
      rethrowAs(isConflict, () => new ApiError('bad_request', 'the run changed meanwhile; read it and try again')),
    );
}

/** A step to retry must exist; other active runs must leave room under maxActiveRuns. */
async function checkRetry(cluster: Cluster, r: DagRunResource, stepName: string | undefined): Promise<void> {
  const id = runIdentity(r);
  const dag = await runDefinition(cluster, r);
  if (stepName !== undefined && dag?.steps.some((s) => s.name === stepName) !== true)
    throw new ApiError('not_found', `step "${stepName}" not found in run "${id.dagRunId}"`);
  const others = cluster.cache.runIndex.runsOf(id.name).filter((o) => o !== r && isActiveRun(o));
  const max = dag?.maxActiveRuns ?? 1;
  if (max >= 0 && others.length >= Math.max(1, max))
    throw new ApiError('already_running', `DAG "${id.name}" has another active run`, { status: 400 });
}

/** behaviour-notes "retry": same id = a new attempt of the run; another id = a new run. */
export async function retry(
  cluster: Cluster,
  at: RunPath,
  body: Static<typeof retryBody>,
  by: Requester,
): Promise<void> {
  const found = await runAt(cluster, at);
  const id = runIdentity(found);
  if (isActiveRun(found)) throw new ApiError('already_running', `run "${id.dagRunId}" is active`, { status: 400 });
  await checkRetry(cluster, found, body.stepName);
  const newId = body.dagRunId === undefined || body.dagRunId === id.dagRunId ? undefined : body.dagRunId;
  if (newId !== undefined) checkRunId(newId);
  // Retried in place or copied into a new run, the original is a DAGRun: an archived one is put back first.
  const r = isArchived(found)
    ? await liveRunAt(cluster, at, by).catch(
        rethrowAs(
          (error) => error instanceof NameTaken,
          () => new ApiError('already_exists', `another run holds the name of run "${id.dagRunId}"`),
        ),
      )
    : found;
  if (newId === undefined) {
    await cluster.writer.retryRun(r, randomUUID(), body.stepName, by);
    return;
  }
  const spec = (await cluster.definitions.source(r)) ?? {};
  await cluster.starter.start({
    name: id.name,
    ...(r.spec.dagRef === undefined ? {} : { dagResource: r.spec.dagRef.name }),
    spec,
    load: loadSpec(spec, id.name),
    ...(r.spec.params === undefined ? {} : { params: r.spec.params }),
    dagRunId: newId,
    singletonCode: 'already_running',
    trigger: 'retry',
    retryOf: r.metadata?.name ?? '',
    requestedBy: by,
  });
}
