/**
 * Logs: a run's log (its story told from the run status: what ran when and how it ended) and
 * each step's stdout/stderr, read from the operator's log endpoint, which serves archived
 * attempts from the log store and running ones live from their Pod.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { logChunk, MAX_LIMIT, type LogQuery } from '../../core/logs/chunk.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import type { AppDeps } from '../app.ts';
import { need, type Cluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import { S } from '../schemas.ts';
import { runIdentity } from '../views/identity.ts';
import { runAt, SUB_RUN_SEGMENTS } from './runs.ts';

const chunkQuery = {
  tail: Type.Optional(Type.Integer({ minimum: 0 })),
  head: Type.Optional(Type.Integer({ minimum: 0 })),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LIMIT })),
  remoteNode: Type.Optional(Type.String()),
};
const runLogQuery = Type.Object(chunkQuery);
const stepLogQuery = Type.Object({ ...chunkQuery, stream: Type.Optional(Type.Union([Type.Literal('stdout'), Type.Literal('stderr')])) });
const HANDLER_KEYS = ['onExit', 'onSuccess', 'onFailure', 'onCancel'] as const;

const EMPTY = { content: '', lineCount: 0, totalLines: 0, hasMore: false, isEstimate: false };

/** The run's own log: one line per thing that happened, in time order. Pure. */
const suffix = (prefix: string, value: string | number | undefined, close = ''): string => (value === undefined || value === '' ? '' : `${prefix}${String(value)}${close}`);

function nodeEvents(node: RunNode): [string | undefined, string][] {
  return [
    [node.startedAt, `step ${node.name} started (attempt ${String(node.attempt ?? 0)})`],
    [node.finishedAt, `step ${node.name} ${node.statusLabel}${suffix(' (exit code ', node.exitCode, ')')}${suffix(': ', node.error)}`],
  ];
}

export function runLogText(run: DagRunResource): string {
  const status = run.status ?? {};
  const id = runIdentity(run);
  const nodes = [...(status.nodes ?? []), ...HANDLER_KEYS.flatMap((k) => status[k] ?? [])];
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
  return (status.nodes ?? []).find((n) => n.name === step) ?? HANDLER_KEYS.map((k) => status[k]).find((n) => n !== undefined && (n.name === step || step === HANDLER_KEYS.find((k) => status[k] === n)));
}

async function stepLog(cluster: Cluster, run: DagRunResource, step: string, query: LogQuery & { stream?: 'stdout' | 'stderr' }): Promise<typeof EMPTY> {
  const node = stepNode(run, step);
  if (node === undefined) throw new ApiError('not_found', `step "${step}" not found in run "${runIdentity(run).dagRunId}"`);
  if (node.startedAt === undefined && node.attempt === undefined) return EMPTY;
  const ref = { dagName: run.spec.dagName ?? runIdentity(run).name, dagRunId: runIdentity(run).dagRunId, step: node.name, attempt: node.attempt ?? 0, stream: query.stream ?? 'stdout' };
  return (await cluster.logs.read(ref, query)) ?? EMPTY;
}

export function logRoutes(app: FastifyInstance, deps: AppDeps): void {
  const cluster = (): Cluster => need(deps.cluster);
  const read = { permission: 'read' as const };
  const runLog = (request: FastifyRequest): typeof EMPTY => logChunk(runLogText(runAt(cluster(), request.params as { name: string; dagRunId: string; subDAGRunId?: string })), request.query as LogQuery);
  const stepLogOf = (request: FastifyRequest): Promise<typeof EMPTY> => {
    const params = request.params as { name: string; dagRunId: string; subDAGRunId?: string; stepName: string };
    return stepLog(cluster(), runAt(cluster(), params), params.stepName, request.query as LogQuery);
  };
  const schema = (params: Record<string, ReturnType<typeof Type.String>>, querystring: typeof runLogQuery | typeof stepLogQuery): object => ({ tags: ['logs'], params: Type.Object(params), querystring, response: { 200: S.logChunk } });
  const base = { name: Type.String(), dagRunId: Type.String() };

  app.get('/dag-runs/:name/:dagRunId/log', { config: read, schema: schema(base, runLogQuery) }, runLog);
  app.get('/dag-runs/:name/:dagRunId/steps/:stepName/log', { config: read, schema: schema({ ...base, stepName: Type.String() }, stepLogQuery) }, stepLogOf);
  for (const segment of SUB_RUN_SEGMENTS) {
    app.get(`/dag-runs/:name/:dagRunId/${segment}/log`, { config: read, schema: schema({ ...base, subDAGRunId: Type.String() }, runLogQuery) }, runLog);
    app.get(`/dag-runs/:name/:dagRunId/${segment}/steps/:stepName/log`, { config: read, schema: schema({ ...base, subDAGRunId: Type.String(), stepName: Type.String() }, stepLogQuery) }, stepLogOf);
  }
}

/** Reads step logs from the operator's internal endpoint. */
export class OperatorLogs {
  private readonly baseUrl: string;
  private readonly namespace: string;

  constructor(baseUrl: string, namespace: string) {
    this.baseUrl = baseUrl.replace(/\/$/, '');
    this.namespace = namespace;
  }

  async read(ref: { dagName: string; dagRunId: string; step: string; attempt: number; stream: 'stdout' | 'stderr' }, query: LogQuery): Promise<typeof EMPTY | undefined> {
    const path = [this.namespace, ref.dagName, ref.dagRunId, ref.step, String(ref.attempt)].map(encodeURIComponent).join('/');
    const search = new URLSearchParams({ stream: ref.stream });
    for (const [key, value] of Object.entries(query)) if (typeof value === 'number') search.set(key, String(value));
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl}/logs/${path}?${search.toString()}`, { signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new ApiError('service_unavailable', `the operator's log endpoint is unreachable: ${(error as Error).message}`);
    }
    if (response.status === 404) return undefined;
    if (!response.ok) throw new ApiError('internal_error', `the operator's log endpoint answered ${String(response.status)}`);
    return (await response.json()) as typeof EMPTY;
  }
}
