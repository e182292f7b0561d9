/**
 * The operator's side of the history protocol (protocol.ts): routes on its internal endpoint
 * that answer from the store it opened. Reads, and `relist` (a DAG renamed through the API).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Static } from 'typebox';
import { isRetryable } from '../errors.ts';
import type { HistoryReader, HistorySummary } from '../types.ts';
import {
  dagParams,
  HISTORY_PREFIX,
  limitQuery,
  listQuery,
  namespaceParams,
  pageQuery,
  relistBody,
  runIdParams,
  runParams,
  runsBody,
  subRunParams,
  type ErrorBody,
  type StreamLine,
} from './protocol.ts';

const notFound = (reply: FastifyReply): FastifyReply =>
  reply.code(404).send({ message: 'no such run in the history store', retryable: false } satisfies ErrorBody);

/** Pages as NDJSON lines, then `end`; a store failure mid-stream becomes an `error` line. */
async function* ndjson(pages: AsyncIterable<readonly HistorySummary[]>): AsyncGenerator<string> {
  try {
    for await (const page of pages) {
      yield `${JSON.stringify({ page } satisfies StreamLine)}\n`;
      // A synchronous store (SQLite) answers each page at once: without a turn of the event loop
      // between pages, a listing of 100,000 runs would hold off the Lease renewals and the
      // reconciles sharing this process.
      await new Promise<void>((resolve) => {
        setImmediate(resolve);
      });
    }
    yield `${JSON.stringify({ end: true } satisfies StreamLine)}\n`;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    yield `${JSON.stringify({ error: message, retryable: isRetryable(error) } satisfies StreamLine)}\n`;
  }
}

// One page read ahead of the connection, not sixteen (Readable.from's default for objects).
const streamed = (reply: FastifyReply, pages: AsyncIterable<readonly HistorySummary[]>): FastifyReply =>
  reply.type('application/x-ndjson').send(Readable.from(ndjson(pages), { highWaterMark: 1 }));

/**
 * Registers the routes (in a scope of their own, so that their failures answer the protocol's
 * ErrorBody, whatever the rest of the endpoint answers).
 */
export function serveHistory(root: FastifyInstance, store: HistoryReader): void {
  void root.register((app, _options, done) => {
    app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) =>
      reply.code(error.statusCode ?? 500).send({
        message: error.message,
        retryable: error.statusCode === undefined && isRetryable(error),
      } satisfies ErrorBody),
    );
    routes(app, store);
    done();
  });
}

function routes(app: FastifyInstance, store: HistoryReader): void {
  const p = HISTORY_PREFIX;
  app.get<{ Params: Static<typeof runParams> }>(
    `${p}/:namespace/runs/:dagName/:dagRunId`,
    { schema: { params: runParams } },
    async (request, reply) => (await store.summary(request.params)) ?? notFound(reply),
  );
  app.get<{ Params: Static<typeof runParams> }>(
    `${p}/:namespace/runs/:dagName/:dagRunId/full`,
    { schema: { params: runParams } },
    async (request, reply) => (await store.run(request.params)) ?? notFound(reply),
  );
  app.get<{ Params: Static<typeof runIdParams> }>(
    `${p}/:namespace/run-ids/:dagRunId`,
    { schema: { params: runIdParams } },
    (request) => store.withRunId(request.params.namespace, request.params.dagRunId),
  );
  app.get<{ Params: Static<typeof dagParams> }>(
    `${p}/:namespace/dags/:dagName/latest`,
    { schema: { params: dagParams } },
    async (request, reply) => (await store.latest(request.params.namespace, request.params.dagName)) ?? notFound(reply),
  );
  app.get<{ Params: Static<typeof dagParams>; Querystring: Static<typeof limitQuery> }>(
    `${p}/:namespace/dags/:dagName/runs`,
    { schema: { params: dagParams, querystring: limitQuery } },
    (request) => store.runsOf(request.params.namespace, request.params.dagName, request.query.limit),
  );
  app.get<{ Params: Static<typeof namespaceParams>; Querystring: Static<typeof listQuery> }>(
    `${p}/:namespace/runs`,
    { schema: { params: namespaceParams, querystring: listQuery } },
    (request, reply) => {
      const { pageSize, ...filter } = request.query;
      return streamed(
        reply,
        store.list({ namespace: request.params.namespace, ...filter }, pageSize === undefined ? {} : { pageSize }),
      );
    },
  );
  app.get<{ Params: Static<typeof subRunParams>; Querystring: Static<typeof pageQuery> }>(
    `${p}/:namespace/sub-runs/:rootName/:rootDagRunId`,
    { schema: { params: subRunParams, querystring: pageQuery } },
    (request, reply) => {
      const { namespace, rootName, rootDagRunId } = request.params;
      const { pageSize } = request.query;
      return streamed(
        reply,
        store.subRuns(
          namespace,
          { name: rootName, dagRunId: rootDagRunId },
          pageSize === undefined ? {} : { pageSize },
        ),
      );
    },
  );
  // A POST because the keys do not fit a path; it reads only. Runs not stored answer null.
  app.post<{ Params: Static<typeof namespaceParams>; Body: Static<typeof runsBody> }>(
    `${p}/:namespace/runs-read`,
    { schema: { params: namespaceParams, body: runsBody } },
    async (request) => (await store.runs(request.params.namespace, request.body.runs)).map((run) => run ?? null),
  );
  app.post<{ Params: Static<typeof namespaceParams>; Body: Static<typeof relistBody> }>(
    `${p}/:namespace/relist`,
    { schema: { params: namespaceParams, body: relistBody } },
    async (request) => ({
      moved: await store.relist(request.params.namespace, request.body.from, request.body.to),
    }),
  );
}
