/** Running DAGs: start, enqueue, suspend, stop-all, inline runs, and a DAG's run history. */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static } from 'typebox';
import { formatIssue, loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { dagOf, resolverFor, rootRun, runDefinition, type Cluster } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { refuseAbovePolicy } from '../pod-policy.ts';
import { NAMES, requestBody, S } from '../schemas.ts';
import { DEFAULT_DAG_YAML } from './dags.ts';
import type { StartRequest } from '../starts.ts';
import type { Requester } from '../../core/resources/requested-by.ts';
import { runActive } from '../../core/resources/status.ts';
import { recentRoots, withRecords } from '../archive-reads.ts';
import { gridData, runDetails, type RunDetails } from '../views/runs.ts';

const fileParams = Type.Object({ fileName: NAMES.fileName });
const runParams = Type.Object({ fileName: NAMES.fileName, dagRunId: Type.String() });
// Each body's example is a request that works (the document's examples, and schemathesis's first cases).
const suspendBody = requestBody({ suspend: Type.Boolean() }, { suspend: false });
const startBody = requestBody(
  {
    params: Type.Optional(Type.String()),
    dagRunId: Type.Optional(NAMES.dagRunId),
    singleton: Type.Optional(Type.Boolean()),
    dagName: Type.Optional(NAMES.dagName),
  },
  { params: '', singleton: false },
);
const enqueueBody = requestBody(
  {
    params: Type.Optional(Type.String()),
    dagRunId: Type.Optional(NAMES.dagRunId),
    queue: Type.Optional(Type.String()),
    dagName: Type.Optional(NAMES.dagName),
  },
  { params: '' },
);
const inlineBody = requestBody(
  {
    spec: Type.String(),
    name: Type.Optional(NAMES.inlineDagName),
    params: Type.Optional(Type.String()),
    dagRunId: Type.Optional(NAMES.dagRunId),
    singleton: Type.Optional(Type.Boolean()),
  },
  { name: 'inline-hello', spec: DEFAULT_DAG_YAML },
);
const inlineEnqueueBody = requestBody(
  {
    spec: Type.String(),
    name: Type.Optional(NAMES.inlineDagName),
    params: Type.Optional(Type.String()),
    dagRunId: Type.Optional(NAMES.dagRunId),
    queue: Type.Optional(Type.String()),
  },
  { name: 'inline-hello', spec: DEFAULT_DAG_YAML },
);

/** How many runs GET /dags/{f}/dag-runs shows (behaviour-notes: 30 most recent). */
export const HISTORY_LENGTH = 30;

/** What the four start bodies have in common; each route's schema allows its own part of it. */
export type StartBody = Partial<Static<typeof startBody> & Static<typeof enqueueBody>>;

export function fileStart(
  cluster: Cluster,
  fileName: string,
  body: StartBody,
  enqueue: boolean,
  requestedBy: Requester,
): StartRequest {
  const entry = dagOf(cluster, fileName);
  const load =
    body.dagName === undefined ? entry.load : loadDag(entry.yaml, { fileName: entry.fileName, name: body.dagName });
  return {
    name: load.dag.name,
    dagResource: entry.resource.metadata?.name ?? '',
    spec: entry.resource.spec,
    load,
    ...pick(body),
    singletonCode: 'already_running',
    enqueue,
    trigger: 'api',
    requestedBy,
  };
}

function pick(body: StartBody): Pick<StartRequest, 'params' | 'dagRunId' | 'singleton' | 'queue'> {
  return {
    ...(body.params === undefined ? {} : { params: body.params }),
    ...(body.dagRunId === undefined ? {} : { dagRunId: body.dagRunId }),
    ...(body.singleton === undefined ? {} : { singleton: body.singleton }),
    ...(body.queue === undefined ? {} : { queue: body.queue }),
  };
}

/** An inline run: no DAG file is stored; the run keeps its own copy of the definition. */
function inlineStart(
  body: StartBody & Pick<Static<typeof inlineBody>, 'spec' | 'name'>,
  enqueue: boolean,
  requestedBy: Requester,
): StartRequest {
  const load = loadDag(body.spec, body.name === undefined ? {} : { name: body.name });
  if (load.errors.length > 0)
    throw new ApiError('bad_request', `invalid spec: ${load.errors.map(formatIssue).join('; ')}`);
  return {
    name: load.dag.name,
    spec: dagManifest('inline', load.documents).spec,
    load,
    ...pick(body),
    singletonCode: 'max_run_reached',
    enqueue,
    trigger: 'api',
    requestedBy,
  };
}

/** The app as a route plugin of this file sees it: TypeBox schemas type each route. */
type ExecutionApp = Parameters<FastifyPluginCallbackTypebox<ResourceRouteOptions>>[0];

const run = { permission: 'run' as const };

// Registered in the OpenAPI document's order.
export const executionRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  startRoutes(app, cluster);
  controlRoutes(app, cluster);
  historyRoutes(app, cluster);
  done();
};

/** Starting and enqueueing a stored DAG or an inline one. */
function startRoutes(app: ExecutionApp, cluster: Cluster): void {
  app.post(
    '/dags/:fileName/start',
    {
      config: { ...run, errors: ['not_found', 'already_exists', 'already_running', 'max_run_reached'] },
      schema: { tags: ['execution'], params: fileParams, body: startBody, response: { 200: S.dagRunId } },
    },
    async (request) => {
      const started = await cluster.starter.start(
        fileStart(cluster, request.params.fileName, request.body, false, request.caller),
      );
      return { dagRunId: started.dagRunId };
    },
  );

  app.post(
    '/dags/:fileName/enqueue',
    {
      config: { ...run, errors: ['not_found', 'already_exists', 'already_running', 'max_run_reached'] },
      schema: { tags: ['execution'], params: fileParams, body: enqueueBody, response: { 200: S.dagRunId } },
    },
    async (request) => {
      const started = await cluster.starter.start(
        fileStart(cluster, request.params.fileName, request.body, true, request.caller),
      );
      return { dagRunId: started.dagRunId };
    },
  );

  app.post(
    '/dag-runs',
    {
      config: { ...run, errors: ['bad_request', 'already_exists', 'max_run_reached'] },
      schema: { tags: ['execution'], body: inlineBody, response: { 200: S.dagRunId } },
    },
    async (request) => {
      const start = inlineStart(request.body, false, request.caller);
      await refuseAbovePolicy(cluster.policy, start.load.dag);
      const started = await cluster.starter.start(start);
      return { dagRunId: started.dagRunId };
    },
  );

  app.post(
    '/dag-runs/enqueue',
    {
      config: { ...run, errors: ['bad_request', 'already_exists', 'max_run_reached'] },
      schema: { tags: ['execution'], body: inlineEnqueueBody, response: { 200: S.dagRunId } },
    },
    async (request) => {
      const start = inlineStart(request.body, true, request.caller);
      await refuseAbovePolicy(cluster.policy, start.load.dag);
      const started = await cluster.starter.start(start);
      return { dagRunId: started.dagRunId };
    },
  );
}

/** Suspending a DAG's schedule and stopping all its runs. */
function controlRoutes(app: ExecutionApp, cluster: Cluster): void {
  app.post(
    '/dags/:fileName/suspend',
    {
      config: { ...run, errors: ['not_found'] },
      schema: { tags: ['execution'], params: fileParams, body: suspendBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const entry = dagOf(cluster, request.params.fileName);
      const { suspend } = request.body;
      if (entry.suspended !== suspend) await cluster.writer.setSuspended(entry.resource, suspend, request.caller);
      return reply.code(200).send();
    },
  );

  app.post(
    '/dags/:fileName/stop-all',
    {
      config: { ...run, errors: ['not_found'] },
      schema: { tags: ['execution'], params: fileParams, response: { 200: S.errorsOnly } },
    },
    async (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      const running = cluster.cache.runIndex
        .runsOf(entry.load.dag.name)
        .filter((r) => runActive(r.status?.status) && r.spec.stop !== true);
      const errors: string[] = [];
      for (const r of running) {
        await cluster.writer
          .stopRun(r, request.caller)
          .catch((error: unknown) => errors.push(`${r.spec.dagRunId ?? ''}: ${(error as Error).message}`));
      }
      return { errors };
    },
  );
}

/** A DAG's recent runs and one of them, with their steps. */
function historyRoutes(app: ExecutionApp, cluster: Cluster): void {
  app.get(
    '/dags/:fileName/dag-runs',
    {
      config: { permission: 'read', errors: ['not_found'] },
      schema: { tags: ['runs'], params: fileParams, response: { 200: S.dagRunsWithGrid } },
    },
    async (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      const runs = await recentRoots(cluster, entry.load.dag.name, HISTORY_LENGTH);
      const details: RunDetails[] = [];
      // One run at a time: the records of big runs pass through a bounded cache (records.ts).
      for (const r of runs)
        details.push(
          runDetails(await withRecords(cluster, r), await runDefinition(cluster, r), await resolverFor(cluster, r)),
        );
      return { dagRuns: details, gridData: gridData(details) };
    },
  );

  app.get(
    '/dags/:fileName/dag-runs/:dagRunId',
    {
      config: { permission: 'read', errors: ['not_found'] },
      schema: { tags: ['runs'], params: runParams, response: { 200: S.dagRunWrapped } },
    },
    async (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      const r = await rootRun(cluster, entry.load.dag.name, request.params.dagRunId);
      return {
        dagRun: runDetails(
          await withRecords(cluster, r),
          await runDefinition(cluster, r),
          await resolverFor(cluster, r),
        ),
      };
    },
  );
}
