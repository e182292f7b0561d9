/**
 * /api/v1's log downloads: a run's log and a step's stdout or stderr as one text/plain
 * attachment, named as Dagu 2.x names them. A step's log is read from the log reader page by
 * page (the most lines a read may ask for) and streamed, so the server holds one page, whatever
 * the log's size. A running step's log is what it has written so far.
 */
import { Readable } from 'node:stream';
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { MAX_LIMIT, type LogChunk } from '../../core/logs/chunk.ts';
import { recordedRunAt, type LogReader, type LogRef } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { remoteNodeQuery } from '../schemas.ts';
import {
  runLogParams,
  runLogText,
  stepLogParams,
  stepLogRef,
  streamQuery,
  subRunLogParams,
  subStepLogParams,
} from '../routes/logs.ts';

const runQuery = Type.Object({ remoteNode: remoteNodeQuery });
const stepQuery = Type.Object({ remoteNode: remoteNodeQuery, stream: streamQuery });
const text = Type.String({ description: 'The whole log, as an attachment (Content-Disposition names the file).' });

/** Dagu's file-name rule: every character but letters, digits, `.`, `_` and `-` becomes `_`. Pure. */
export const safeFileName = (part: string): string => part.replace(/[^a-zA-Z0-9._-]/g, '_');

/** The attachment's name, Dagu's pattern: name-runId[-sub-subId][-step-stream|-scheduler].log. Pure. */
export function downloadName(parts: {
  name: string;
  dagRunId: string;
  subDAGRunId?: string | undefined;
  step?: { name: string; stream: 'stdout' | 'stderr' } | undefined;
}): string {
  const sub = parts.subDAGRunId === undefined ? [] : ['sub', safeFileName(parts.subDAGRunId)];
  const what = parts.step === undefined ? ['scheduler'] : [safeFileName(parts.step.name), parts.step.stream];
  return `${[safeFileName(parts.name), safeFileName(parts.dagRunId), ...sub, ...what].join('-')}.log`;
}

/** The first page of one attempt's log; undefined when the attempt left none (a skipped step's). */
export const firstPage = (logs: LogReader, ref: LogRef): Promise<LogChunk | undefined> =>
  logs.read(ref, { offset: 1, limit: MAX_LIMIT });

/** Every line of one attempt's log from its first page on, a page at a time, each line ending in a newline. */
export async function* logLines(logs: LogReader, ref: LogRef, first: LogChunk | undefined): AsyncGenerator<string> {
  let chunk = first;
  for (let offset = 1 + MAX_LIMIT; chunk !== undefined && chunk.lineCount > 0; offset += MAX_LIMIT) {
    yield `${chunk.content}\n`;
    if (!chunk.hasMore) return;
    chunk = await logs.read(ref, { offset, limit: MAX_LIMIT });
  }
}

function attachment(reply: FastifyReply, fileName: string): FastifyReply {
  return reply.type('text/plain; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`);
}

export const v1DownloadRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const read = { permission: 'read' as const, errors: ['not_found'] as const };
  const schema = <P, Q>(params: P, querystring: Q) => ({
    tags: ['dag-runs'],
    produces: ['text/plain'],
    params,
    querystring,
    response: { 200: text },
  });

  app.get(
    '/dag-runs/:name/:dagRunId/log/download',
    { config: read, schema: schema(runLogParams, runQuery) },
    async (request, reply) =>
      attachment(reply, downloadName(request.params)).send(runLogText(await recordedRunAt(cluster, request.params))),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/log/download',
    { config: read, schema: schema(subRunLogParams, runQuery) },
    async (request, reply) =>
      attachment(reply, downloadName(request.params)).send(runLogText(await recordedRunAt(cluster, request.params))),
  );
  const stepDownload = async (
    params: { name: string; dagRunId: string; subDAGRunId?: string; stepName: string },
    stream: 'stdout' | 'stderr',
    reply: FastifyReply,
  ): Promise<FastifyReply> => {
    const ref = stepLogRef(await recordedRunAt(cluster, params), params.stepName, stream);
    // Dagu answers 404 when the step's log file does not exist: a step that never ran has none.
    const first = ref === undefined ? undefined : await firstPage(cluster.logs, ref);
    if (ref === undefined || first === undefined)
      throw new ApiError('not_found', `log not found for step "${params.stepName}"`);
    const fileName = downloadName({ ...params, step: { name: params.stepName, stream } });
    return attachment(reply, fileName).send(Readable.from(logLines(cluster.logs, ref, first)));
  };
  app.get(
    '/dag-runs/:name/:dagRunId/steps/:stepName/log/download',
    { config: read, schema: schema(stepLogParams, stepQuery) },
    async (request, reply) => stepDownload(request.params, request.query.stream ?? 'stdout', reply),
  );
  app.get(
    '/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/steps/:stepName/log/download',
    { config: read, schema: schema(subStepLogParams, stepQuery) },
    async (request, reply) => stepDownload(request.params, request.query.stream ?? 'stdout', reply),
  );
  done();
};
