/**
 * Logs: a run's log (its story told from the run status: what ran when and how it ended) and
 * each step's stdout/stderr, read from the operator's log endpoint, which serves archived
 * attempts from the log store and running ones live from their Pod.
 */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type, { type Static } from 'typebox';
import { logChunk, MAX_LIMIT, type LogChunk, type LogQuery } from '../../core/logs/chunk.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { recordedRunAt, type Cluster, type LogRef } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { SUB_RUN_SEGMENTS } from '../paths.ts';
import { queryInteger, remoteNodeQuery, S } from '../schemas.ts';
import { runIdentity } from '../views/identity.ts';
import { HANDLER_RECORD_KEYS, statusRecords } from '../../core/resources/run-records.ts';

const chunkQuery = {
  tail: Type.Optional(queryInteger({ minimum: 0 })),
  head: Type.Optional(queryInteger({ minimum: 0 })),
  offset: Type.Optional(queryInteger({ minimum: 0 })),
  limit: Type.Optional(queryInteger({ minimum: 0, maximum: MAX_LIMIT })),
  remoteNode: remoteNodeQuery,
};
const runLogQuery = Type.Object(chunkQuery);
type Stream = 'stdout' | 'stderr';
/** A step log's `stream` query parameter; /api/v1's downloads take it too. */
export const streamQuery = Type.Optional(Type.Union([Type.Literal('stdout'), Type.Literal('stderr')]));
const stepLogQuery = Type.Object({ ...chunkQuery, stream: streamQuery });
const runPath = { name: Type.String(), dagRunId: Type.String() };
/** The path parameters of the log routes, a run's, a step's and both under a sub-run. */
export const runLogParams = Type.Object(runPath);
export const stepLogParams = Type.Object({ ...runPath, stepName: Type.String() });
export const subRunLogParams = Type.Object({ ...runPath, subDAGRunId: Type.String() });
export const subStepLogParams = Type.Object({ ...runPath, subDAGRunId: Type.String(), stepName: Type.String() });

const EMPTY: LogChunk = { content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false };

/** The run's own log: one line per thing that happened, in time order. Pure. */
const suffix = (prefix: string, value: string | number | undefined, close = ''): string =>
  value === undefined || value === '' ? '' : `${prefix}${String(value)}${close}`;

function nodeEvents(node: RunNode): [string | undefined, string][] {
  return [
    [node.startedAt, `step ${node.name} started (attempt ${String(node.attempt ?? 0)})`],
    [
      node.finishedAt,
      `step ${node.name} ${node.statusLabel}${suffix(' (exit code ', node.exitCode, ')')}${suffix(': ', node.error)}`,
    ],
  ];
}

export function runLogText(run: DagRunResource): string {
  const status = run.status ?? {};
  const id = runIdentity(run);
  const nodes = statusRecords(status);
  const events: [string | undefined, string][] = [
    [status.queuedAt, `run ${id.dagRunId} of ${id.name} queued`],
    [status.startedAt, `run ${id.dagRunId} of ${id.name} started${suffix(' with params ', status.params)}`],
    ...nodes.flatMap(nodeEvents),
    [status.finishedAt, `run ${id.dagRunId} ${status.statusLabel ?? 'ended'}${suffix(': ', status.error)}`],
  ];
  return events
    .filter((event): event is [string, string] => event[0] !== undefined)
    .sort(([a], [b]) => Date.parse(a) - Date.parse(b))
    .map(([at, text]) => `${at} ${text}\n`)
    .join('');
}

function stepNode(run: DagRunResource, step: string): RunNode | undefined {
  const status = run.status ?? {};
  return (
    (status.nodes ?? []).find((n) => n.name === step) ??
    HANDLER_RECORD_KEYS.map((k) => status[k]).find(
      (n) => n !== undefined && (n.name === step || step === HANDLER_RECORD_KEYS.find((k) => status[k] === n)),
    )
  );
}

/** Only what a chunk is cut by: the query's other fields (remoteNode, stream) are not passed on. */
function chunkOf({ tail, head, offset, limit }: Static<typeof runLogQuery>): LogQuery {
  return {
    ...(tail === undefined ? {} : { tail }),
    ...(head === undefined ? {} : { head }),
    ...(offset === undefined ? {} : { offset }),
    ...(limit === undefined ? {} : { limit }),
  };
}

/**
 * The log a step's latest attempt wrote to `stream`; undefined when the step never started.
 * A step the run does not have is a not_found error.
 */
export function stepLogRef(run: DagRunResource, step: string, stream: Stream): LogRef | undefined {
  const node = stepNode(run, step);
  if (node === undefined)
    throw new ApiError('not_found', `step "${step}" not found in run "${runIdentity(run).dagRunId}"`);
  if (node.startedAt === undefined && node.attempt === undefined) return undefined;
  return {
    dagName: run.spec.dagName ?? runIdentity(run).name,
    dagRunId: runIdentity(run).dagRunId,
    step: node.name,
    attempt: node.attempt ?? 0,
    stream,
  };
}

async function stepLog(
  cluster: Cluster,
  run: DagRunResource,
  step: string,
  query: Static<typeof stepLogQuery>,
): Promise<LogChunk> {
  const ref = stepLogRef(run, step, query.stream ?? 'stdout');
  if (ref === undefined) return EMPTY;
  return (await cluster.logs.read(ref, chunkOf(query))) ?? EMPTY;
}

export const logRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const, errors: ['not_found'] as const };
  const schema = <
    P extends typeof runLogParams | typeof subRunLogParams | typeof stepLogParams | typeof subStepLogParams,
    Q extends typeof runLogQuery | typeof stepLogQuery,
  >(
    params: P,
    querystring: Q,
  ): { tags: string[]; params: P; querystring: Q; response: { 200: typeof S.logChunk } } => ({
    tags: ['logs'],
    params,
    querystring,
    response: { 200: S.logChunk },
  });

  app.get(
    '/dag-runs/:name/:dagRunId/log',
    { config: read, schema: schema(runLogParams, runLogQuery) },
    async (request) => logChunk(runLogText(await recordedRunAt(cluster, request.params)), chunkOf(request.query)),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/steps/:stepName/log',
    { config: read, schema: schema(stepLogParams, stepLogQuery) },
    async (request) =>
      stepLog(cluster, await recordedRunAt(cluster, request.params), request.params.stepName, request.query),
  );
  for (const segment of SUB_RUN_SEGMENTS) {
    app.get(
      `/dag-runs/:name/:dagRunId/${segment}/log`,
      { config: read, schema: schema(subRunLogParams, runLogQuery) },
      async (request) => logChunk(runLogText(await recordedRunAt(cluster, request.params)), chunkOf(request.query)),
    );
    app.get(
      `/dag-runs/:name/:dagRunId/${segment}/steps/:stepName/log`,
      { config: read, schema: schema(subStepLogParams, stepLogQuery) },
      async (request) =>
        stepLog(cluster, await recordedRunAt(cluster, request.params), request.params.stepName, request.query),
    );
  }
  done();
};
