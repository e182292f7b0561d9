/**
 * DAG runs: listings, details, stop, retry, reschedule, dequeue, step status edits and sub
 * runs. Sub-run paths exist under `sub-dag-runs/{id}` (the contract) and `children/{id}`
 * (older clients).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static } from 'typebox';
import type { DagLoad } from '../../core/dag/index.ts';
import { loadDagSpec } from '../../core/resources/dag.ts';
import { isConflict, isNotFound } from '../../core/kube/errors.ts';
import { RunStatus, stepStatusLabel, runActive } from '../../core/resources/status.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { liveRunAt, recordedRunAt, resolverFor, runAt, runDefinition, type Cluster, type RunPath } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError, rethrowAs } from '../errors.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { NAMES, queryInteger, remoteNodeQuery, requestBody, S } from '../schemas.ts';
import { isActiveRun } from '../../core/resources/queue.ts';
import { parseRequestedBy, type Requester } from '../../core/resources/requested-by.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { checkRunId } from '../starts.ts';
import { runIdentity } from '../views/identity.ts';
import { iso } from '../views/format.ts';
import { sendJsonStream } from '../responses.ts';
import { summaryStream } from '../views/run-listing.ts';
import { isArchived, matchingRuns } from '../archive-reads.ts';
import { NameTaken } from '../restore.ts';
import { runDetails, runStatusOf, runSummary } from '../views/runs.ts';
import { HANDLER_RECORD_KEYS, statusRecords } from '../../core/resources/run-records.ts';

const runParams = Type.Object({ name: Type.String(), dagRunId: Type.String() });
const subParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), subDAGRunId: Type.String() });
const stepParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), stepName: Type.String() });
const subStepParams = Type.Object({
  name: Type.String(),
  dagRunId: Type.String(),
  subDAGRunId: Type.String(),
  stepName: Type.String(),
});
const listQuery = Type.Object({
  name: Type.Optional(Type.String()),
  status: Type.Optional(queryInteger({ minimum: 0, maximum: 6 })),
  fromDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  toDate: Type.Optional(queryInteger({ description: 'Unix seconds, inclusive.' })),
  dagRunId: Type.Optional(Type.String()),
  remoteNode: remoteNodeQuery,
});
const stepStatusBody = requestBody({ status: Type.Integer({ minimum: 0, maximum: 5 }) }, { status: 4 });
const retryBody = requestBody({ dagRunId: Type.Optional(NAMES.dagRunId), stepName: Type.Optional(Type.String()) }, {});
const rescheduleBody = requestBody(
  { dagRunId: Type.Optional(NAMES.dagRunId), dagName: Type.Optional(NAMES.dagName) },
  {},
);
const rescheduled = Type.Object({ dagRunId: Type.String(), queued: Type.Boolean() });

const requester = (description: string) =>
  Type.Union([Type.Object({ user: Type.String(), method: Type.String() }), Type.Null()], { description });
/** Kubedag's own, beside the contract's run details (which may not grow): docs/audit.md. */
const origin = Type.Object(
  {
    trigger: Type.String({
      description: 'What made the run: api, schedule, retry, sub-run, restart, kubectl, or empty when unknown.',
    }),
    startedBy: requester('Who asked the API for the run (kubedag.io/started-by); null for runs the operator made.'),
    requestedBy: requester('Who asked the API for its latest change (kubedag.io/requested-by): a stop, a retry.'),
  },
  { description: 'Who started a run and who last changed it (a Kubedag extension).' },
);

/** A step's address: the run's path and the step's name. */
type StepPath = RunPath & { readonly stepName: string };

// eslint-disable-next-line max-lines-per-function -- longer since Prettier's layout; split pending (issue 27)
export const runRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const };
  const run = { permission: 'run' as const };
  const stepStatus = { ...run, errors: ['not_found', 'bad_request'] as const };
  app.get(
    '/dag-runs',
    { config: read, schema: { tags: ['runs'], querystring: listQuery, response: { 200: S.runSummaries } } },
    async (request, reply) => {
      const { remoteNode: _node, ...query } = request.query;
      // A stream is sent as it is: the summaries are exactly the schema's fields (runSummary).
      sendJsonStream(reply, summaryStream(await matchingRuns(cluster, query)));
      return reply;
    },
  );

  app.get(
    '/dag-runs/:name',
    {
      config: read,
      schema: {
        tags: ['runs'],
        params: Type.Object({ name: Type.String() }),
        querystring: listQuery,
        response: { 200: S.runSummaries },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const { remoteNode: _node, name: _name, ...query } = request.query;
      sendJsonStream(reply, summaryStream(await matchingRuns(cluster, { ...query, name, exactName: true })));
      return reply;
    },
  );

  app.get(
    '/dag-runs/:name/:dagRunId',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.dagRunDetailsWrapped } },
    },
    async (request) => {
      const r = await recordedRunAt(cluster, request.params);
      return { dagRunDetails: runDetails(r, await runDefinition(cluster, r), await resolverFor(cluster, r)) };
    },
  );

  app.post(
    '/dag-runs/:name/:dagRunId/stop',
    {
      config: { ...run, errors: ['not_found', 'not_running'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const r = await runAt(cluster, request.params);
      if (!runActive(runStatusOf(r)))
        throw new ApiError('not_running', `run "${runIdentity(r).dagRunId}" is not running`);
      if (r.spec.stop !== true) await cluster.writer.stopRun(r, request.caller);
      return reply.code(200).send();
    },
  );

  app.post(
    '/dag-runs/:name/:dagRunId/retry',
    {
      config: { ...run, errors: ['not_found', 'already_running@400', 'already_exists', 'max_run_reached'] },
      schema: { tags: ['runs'], params: runParams, body: retryBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      await retry(cluster, request.params, request.body, request.caller);
      return reply.code(200).send();
    },
  );

  app.post(
    '/dag-runs/:name/:dagRunId/reschedule',
    {
      config: { ...run, errors: ['not_found', 'already_exists', 'already_running', 'max_run_reached'] },
      schema: { tags: ['runs'], params: runParams, body: rescheduleBody, response: { 200: rescheduled } },
    },
    async (request) => {
      return reschedule(cluster, await runAt(cluster, request.params), request.body, request.caller);
    },
  );

  app.get(
    '/dag-runs/:name/:dagRunId/dequeue',
    {
      config: { ...run, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const r = await runAt(cluster, request.params);
      if (runStatusOf(r) !== RunStatus.Queued)
        throw new ApiError('not_found', `run "${runIdentity(r).dagRunId}" is not queued`);
      // Gone, or another run under its name (the uid guard): either way it is not queued any more.
      await cluster.writer.deleteRun(r).catch(
        rethrowAs(
          (error) => isNotFound(error) || isConflict(error),
          () => new ApiError('not_found', `run "${runIdentity(r).dagRunId}" is not queued`),
        ),
      );
      return reply.code(200).send();
    },
  );

  // Kubedag's: who started the run, for the run page (docs/decisions/2026-11-29-audit.md).
  app.get(
    '/dag-runs/:name/:dagRunId/origin',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: origin } },
    },
    async (request) => runOrigin(await runAt(cluster, request.params)),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/origin',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: subParams, response: { 200: origin } },
    },
    async (request) => runOrigin(await runAt(cluster, request.params)),
  );

  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.subRuns } },
    },
    async (request) => {
      const r = await recordedRunAt(cluster, request.params);
      return { subRuns: await subRunList(cluster, r) };
    },
  );

  for (const segment of SUB_RUN_SEGMENTS) {
    app.get(
      `/dag-runs/:name/:dagRunId/${segment}`,
      {
        config: { ...read, errors: ['not_found'] },
        schema: { tags: ['runs'], params: subParams, response: { 200: S.dagRunDetailsWrapped } },
      },
      async (request) => {
        const r = await recordedRunAt(cluster, request.params);
        return { dagRunDetails: runDetails(r, await runDefinition(cluster, r), await resolverFor(cluster, r)) };
      },
    );
    app.patch(
      `/dag-runs/:name/:dagRunId/${segment}/steps/:stepName/status`,
      {
        config: stepStatus,
        schema: { tags: ['runs'], params: subStepParams, body: stepStatusBody, response: { 200: S.empty } },
      },
      async (request, reply) => {
        await setStepStatus(cluster, request.params, request.body.status, request.caller);
        return reply.code(200).send();
      },
    );
  }

  app.patch(
    '/dag-runs/:name/:dagRunId/steps/:stepName/status',
    {
      config: stepStatus,
      schema: { tags: ['runs'], params: stepParams, body: stepStatusBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      await setStepStatus(cluster, request.params, request.body.status, request.caller);
      return reply.code(200).send();
    },
  );
  done();
};

/** Who started a run and who last changed it, from its annotations (core/resources/requested-by.ts). */
export function runOrigin(run: DagRunResource): {
  trigger: string;
  startedBy: Requester | null;
  requestedBy: Requester | null;
} {
  const annotations = run.metadata?.annotations ?? {};
  return {
    trigger: run.spec.trigger ?? '',
    startedBy: parseRequestedBy(annotations[ANNOTATIONS.startedBy]) ?? null,
    requestedBy: parseRequestedBy(annotations[ANNOTATIONS.requestedBy]) ?? null,
  };
}

/** The sub runs a run's nodes name, in node order; ones that cannot be found are left out. */
async function subRunList(
  cluster: Cluster,
  r: DagRunResource,
): Promise<
  { dagRunId: string; params: string; status: number; statusLabel: string; startedAt: string; finishedAt: string }[]
> {
  const resolve = await resolverFor(cluster, r);
  const refs = (r.status?.nodes ?? []).flatMap((n) => [...(n.subRuns ?? []), ...(n.subRunsRepeated ?? [])]);
  return refs.flatMap((ref) => {
    const child = resolve(ref.dagRunId);
    if (child === undefined) return [];
    const summary = runSummary(child);
    return [
      {
        dagRunId: ref.dagRunId,
        params: ref.params ?? summary.params,
        status: summary.status,
        statusLabel: summary.statusLabel,
        startedAt: iso(child.status?.startedAt),
        finishedAt: iso(child.status?.finishedAt),
      },
    ];
  });
}

/** A brand-new run from the original's stored definition and params: a singleton start. */
async function reschedule(
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
async function setStepStatus(cluster: Cluster, at: StepPath, status: number, by: Requester): Promise<void> {
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
async function retry(cluster: Cluster, at: RunPath, body: Static<typeof retryBody>, by: Requester): Promise<void> {
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
