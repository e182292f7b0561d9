/**
 * Dagu 2.x's live event stream, as its web UI uses it: GET /events/stream?topic=... opens a
 * server-sent event stream whose first event (`control`) names the session and the topics
 * taken, then a `message` per changed payload (`{topic, payload}`); POST /events/stream/topics
 * adds and removes topics of an open session. Dagu's document does not list these two, and a
 * stream has no end for a document-driven client to wait for, so they are left out of ours too.
 * The sessions are event-hub.ts's, woken by the API server's informers.
 */
import { PassThrough } from 'node:stream';
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import Type from 'typebox';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError } from '../errors.ts';
import { requestBody } from '../schemas.ts';
import { EventHub, type Read } from './event-hub.ts';

const streamQuery = Type.Object({
  topic: Type.Optional(Type.Array(Type.String())),
  lastEventId: Type.Optional(Type.String()),
  remoteNode: Type.Optional(Type.String()),
});
const mutationBody = requestBody({
  sessionID: Type.String({ minLength: 1 }),
  add: Type.Optional(Type.Array(Type.String())),
  remove: Type.Optional(Type.Array(Type.String())),
});

/** The request headers a topic's reads are made with: those that carry who the caller is. */
const CREDENTIALS = ['authorization', 'cookie'] as const;

/**
 * Reads through the app's own routes, so that authentication, permissions and views are the
 * routes'. A refresh can be under way when the app starts closing, and fastify then refuses
 * every inject: that read is unreadable (nothing is sent), never a rejection nobody awaits,
 * which would end the process.
 */
export function readThrough(app: FastifyInstance): Read {
  return async (path, headers) => {
    const answer = await app
      .inject({ method: 'GET', url: path, headers: { ...headers, accept: 'application/json' } })
      .catch(() => undefined);
    return answer?.statusCode === 200 ? answer.json<unknown>() : undefined;
  };
}

export const eventRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster }, done) => {
  const hub = new EventHub(readThrough(app));
  let listening = false;
  const listen = (): void => {
    if (listening) return;
    // Reading the cache throws service_unavailable when the server has no cluster: no stream then.
    const { cache } = cluster;
    for (const informer of [cache.dags, cache.runs, cache.queues]) {
      informer.on(() => {
        hub.wake();
      });
    }
    listening = true;
  };
  // preClose, not onClose: the server's close waits for open connections, and a stream never
  // ends by itself; ending the sessions first lets it close, with no refresh left to start.
  app.addHook('preClose', (next) => {
    hub.stop();
    next();
  });
  const hide = { hide: true };

  app.get(
    '/events/stream',
    { config: { permission: 'read', audit: false }, schema: { ...hide, querystring: streamQuery } },
    (request, reply) => {
      listen();
      const out = new PassThrough();
      const headers = Object.fromEntries(
        CREDENTIALS.flatMap((name) =>
          typeof request.headers[name] === 'string' ? [[name, request.headers[name]]] : [],
        ),
      );
      const id = hub.open(out, request.caller.user, headers, request.query.topic ?? []);
      if (id === undefined)
        throw new ApiError(
          'service_unavailable',
          'the server has as many event streams open as it takes; poll instead',
        );
      request.raw.on('close', () => {
        hub.close(id);
        out.end();
      });
      return reply
        .header('cache-control', 'no-cache')
        .header('x-accel-buffering', 'no')
        .type('text/event-stream')
        .send(out);
    },
  );

  app.post(
    '/events/stream/topics',
    { config: { permission: 'read', audit: false, errors: ['not_found'] }, schema: { ...hide, body: mutationBody } },
    (request) => {
      const { sessionID, add = [], remove = [] } = request.body;
      const result = hub.mutate(sessionID, request.caller.user, add, remove);
      if (result === undefined) throw new ApiError('not_found', `unknown event stream session "${sessionID}"`);
      return result;
    },
  );
  done();
};
