/**
 * The contract's `remoteNode` query parameter: a request naming another configured node is
 * relayed to that node's API and its answer returned as-is, so one UI can drive several
 * installations. Only routes that exist here are relayed; the remote validates the request.
 * The nodes come parsed and checked from config.ts; a node's baseUrl (e.g. http://host:8080)
 * gets the incoming path, with its /api/v2 prefix, appended.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { LOCAL_NODE, type RemoteNode } from './config-remote-nodes.ts';
import { ApiError } from './errors.ts';
import { API_PREFIX, V1_PREFIX } from './paths.ts';
import { remoteNodeQuery } from './schemas.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The configured remote nodes' names, for the served document's `remoteNode` (responses.ts); set by registerRemoteNodes. */
    remoteNodeNames?: readonly string[];
  }
}

const PARAM = 'remoteNode';
const DEFAULT_TIMEOUT_MS = 10_000;

interface Relayed {
  readonly status: number;
  readonly contentType: string | null;
  readonly body: Buffer;
}

/**
 * Adds the relay as a root `preValidation` hook: after onRequest (so local authentication has
 * already admitted the caller) and after the body is parsed, but before the local schema runs,
 * since the remote may run a different version whose schema is the one that counts. Call before
 * the app is ready.
 */
export function registerRemoteNodes(app: FastifyInstance, nodes: readonly RemoteNode[]): void {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  app.decorate(
    'remoteNodeNames',
    nodes.map((node) => node.name),
  );
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    // Unknown routes keep their local 404: relaying them would make every typo a remote call.
    if (request.is404) return;
    const name = requestedNode(request);
    if (name === undefined) return;
    const node = byName.get(name);
    if (node === undefined) throw new ApiError('bad_request', `unknown remote node "${name}"`);
    const relayed = await relay(node, request);
    return reply
      .code(relayed.status)
      .headers(relayed.contentType === null ? {} : { 'content-type': relayed.contentType })
      .send(relayed.body);
  });
}

interface QuerySchema {
  readonly properties?: Record<string, unknown>;
}

/**
 * An `onRoute` hook: the relay runs before any route, so every /api/v2 (and /api/v1) operation takes
 * `remoteNode`, and the OpenAPI document says so (and what the value means) on each of them,
 * whether or not the route names it in its own query schema.
 */
export function documentRemoteNode(route: RouteOptions): void {
  const schema = route.schema ?? {};
  if (!(route.url.startsWith(API_PREFIX) || route.url.startsWith(V1_PREFIX)) || schema.hide === true) return;
  const query = (schema.querystring ?? { type: 'object', properties: {} }) as QuerySchema;
  if (query.properties?.[PARAM] !== undefined) return;
  route.schema = {
    ...schema,
    querystring: { ...query, properties: { ...query.properties, [PARAM]: remoteNodeQuery } },
  };
}

/** The node a request names; undefined when it is to be served here. */
function requestedNode(request: FastifyRequest): string | undefined {
  // A root hook sees every route's query, typed by none of their schemas.
  const query: unknown = request.query;
  const value = typeof query === 'object' && query !== null && PARAM in query ? query[PARAM] : undefined;
  if (Array.isArray(value)) throw new ApiError('bad_request', `${PARAM} must be given once`);
  if (typeof value !== 'string' || value === '' || value === LOCAL_NODE) return undefined;
  return value;
}

/** The remote's URL for a request: the node's base, the same path, the query without remoteNode. */
function remoteUrl(baseUrl: string, requestUrl: string): string {
  const at = requestUrl.indexOf('?');
  const path = at < 0 ? requestUrl : requestUrl.slice(0, at);
  // Filtered as raw text rather than through URLSearchParams, which would re-encode the rest.
  const kept =
    at < 0
      ? []
      : requestUrl
          .slice(at + 1)
          .split('&')
          .filter((pair) => pair !== '' && decodedKey(pair) !== PARAM);
  return `${baseUrl.replace(/\/+$/, '')}${path}${kept.length === 0 ? '' : `?${kept.join('&')}`}`;
}

function decodedKey(pair: string): string {
  const key = pair.split('=', 1)[0] ?? '';
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
}

function outgoingHeaders(node: RemoteNode, request: FastifyRequest, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  const accept = request.headers.accept;
  if (accept !== undefined) headers.accept = accept;
  const contentType = request.headers['content-type'];
  if (hasBody && contentType !== undefined) headers['content-type'] = contentType;
  // The node's own credentials only: the caller's were for this server and must not leak.
  const { basic, token } = node.auth ?? {};
  if (basic !== undefined)
    headers.authorization = `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  else if (token !== undefined) headers.authorization = `Bearer ${token}`;
  return headers;
}

function outgoingBody(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

async function relay(node: RemoteNode, request: FastifyRequest): Promise<Relayed> {
  const timeoutMs = node.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : outgoingBody(request.body);
  let relayed: Relayed;
  try {
    const response = await fetch(remoteUrl(node.baseUrl, request.url), {
      method: request.method,
      headers: outgoingHeaders(node, request, body !== undefined),
      ...(body === undefined ? {} : { body }),
      // A redirect means a misconfigured baseUrl; following it would carry the node's credentials along.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // Read inside the try: a connection dropped mid-body is as unreachable as a refused one.
    relayed = {
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: Buffer.from(await response.arrayBuffer()),
    };
  } catch (error) {
    throw new ApiError(
      'remote_node_error',
      `remote node "${node.name}" is unreachable: ${unreachableReason(error, timeoutMs)}`,
    );
  }
  return checked(node, relayed);
}

function unreachableReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === 'TimeoutError') return `no answer within ${timeoutMs} ms`;
  // undici reports every network failure as "fetch failed"; the cause says which.
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * Errors in the contract's shape are the remote's answer and pass through with their status.
 * Anything else failing (an HTML page from a proxy, a redirect) is not an answer from a node's
 * API, so the caller gets a contract error rather than a body it cannot read.
 */
function checked(node: RemoteNode, relayed: Relayed): Relayed {
  if (relayed.status < 300) return relayed;
  if (relayed.status < 400) {
    throw new ApiError(
      'bad_gateway',
      `remote node "${node.name}" answered a redirect (HTTP ${relayed.status}); check its baseUrl`,
      { details: { status: relayed.status } },
    );
  }
  if (isErrorObject(relayed.body)) return relayed;
  throw new ApiError('bad_gateway', `remote node "${node.name}" answered HTTP ${relayed.status} without an API error`, {
    details: { status: relayed.status },
  });
}

function isErrorObject(body: Buffer): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return false;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false;
  const { code, message } = parsed as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string';
}
