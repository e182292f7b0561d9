/**
 * The contract's `remoteNode` query parameter: a request naming another configured node is
 * relayed to that node's API and its answer returned as-is, so one UI can drive several
 * installations. Only routes that exist here are relayed; the remote validates the request.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.ts';

export interface RemoteNode {
  readonly name: string;
  /** e.g. http://host:8080; the incoming path (with its /api/v2 prefix) is appended. */
  readonly baseUrl: string;
  readonly auth?: { readonly basic?: { readonly username: string; readonly password: string }; readonly token?: string };
  readonly timeoutMs?: number;
}

const LOCAL = 'local';
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
  app.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    // Unknown routes keep their local 404: relaying them would make every typo a remote call.
    if (request.is404) return;
    const name = requestedNode(request);
    if (name === undefined) return;
    const node = byName.get(name);
    if (node === undefined) throw new ApiError('bad_request', `unknown remote node "${name}"`);
    const relayed = await relay(node, request);
    return reply.code(relayed.status).headers(relayed.contentType === null ? {} : { 'content-type': relayed.contentType }).send(relayed.body);
  });
}

/** The node a request names; undefined when it is to be served here. */
function requestedNode(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  const value = query?.[PARAM];
  if (Array.isArray(value)) throw new ApiError('bad_request', `${PARAM} must be given once`);
  if (typeof value !== 'string' || value === '' || value === LOCAL) return undefined;
  return value;
}

/** The remote's URL for a request: the node's base, the same path, the query without remoteNode. */
function remoteUrl(baseUrl: string, requestUrl: string): string {
  const at = requestUrl.indexOf('?');
  const path = at < 0 ? requestUrl : requestUrl.slice(0, at);
  // Filtered as raw text rather than through URLSearchParams, which would re-encode the rest.
  const kept = at < 0 ? [] : requestUrl.slice(at + 1).split('&').filter((pair) => pair !== '' && decodedKey(pair) !== PARAM);
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
  if (basic !== undefined) headers.authorization = `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
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
    relayed = { status: response.status, contentType: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
  } catch (error) {
    throw new ApiError('remote_node_error', `remote node "${node.name}" is unreachable: ${unreachableReason(error, timeoutMs)}`);
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
    throw new ApiError('bad_gateway', `remote node "${node.name}" answered a redirect (HTTP ${relayed.status}); check its baseUrl`, { details: { status: relayed.status } });
  }
  if (isErrorObject(relayed.body)) return relayed;
  throw new ApiError('bad_gateway', `remote node "${node.name}" answered HTTP ${relayed.status} without an API error`, { details: { status: relayed.status } });
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

/**
 * Remote nodes from their JSON configuration (KUBEDAG_REMOTE_NODES or a file): an array of
 * nodes. Unknown fields are errors, so that a misspelt `baseURL` fails at start, not as a
 * request sent without credentials.
 */
export function parseRemoteNodes(text: string): RemoteNode[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`remote nodes: not JSON: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  if (!Array.isArray(parsed)) throw new Error('remote nodes: expected a JSON array of nodes');
  const seen = new Set<string>();
  return parsed.map((raw: unknown, index) => {
    const node = parseNode(raw, `remote nodes[${index}]`);
    if (seen.has(node.name)) throw new Error(`remote nodes: duplicate name "${node.name}"`);
    seen.add(node.name);
    return node;
  });
}

/**
 * Remote nodes as configured in the environment: KUBEDAG_REMOTE_NODES holds the JSON itself,
 * KUBEDAG_REMOTE_NODES_FILE names a file holding it (a mounted Secret, since it carries
 * credentials). Neither set means no remote nodes; both set is an error, not a silent choice.
 */
export function remoteNodesFromEnv(env: NodeJS.ProcessEnv, readFile: (path: string) => string = (path) => readFileSync(path, 'utf8')): RemoteNode[] {
  const inline = env.KUBEDAG_REMOTE_NODES === '' ? undefined : env.KUBEDAG_REMOTE_NODES;
  const file = env.KUBEDAG_REMOTE_NODES_FILE === '' ? undefined : env.KUBEDAG_REMOTE_NODES_FILE;
  if (inline !== undefined && file !== undefined) throw new Error('set KUBEDAG_REMOTE_NODES or KUBEDAG_REMOTE_NODES_FILE, not both');
  if (inline !== undefined) return parseRemoteNodes(inline);
  if (file === undefined) return [];
  let text: string;
  try {
    text = readFile(file);
  } catch (error) {
    throw new Error(`KUBEDAG_REMOTE_NODES_FILE: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  try {
    return parseRemoteNodes(text);
  } catch (error) {
    throw new Error(`${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new Error(`${where}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}`);
}

function nonEmptyString(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${where} must be a non-empty string`);
  return value;
}

function parseNode(raw: unknown, where: string): RemoteNode {
  if (!isRecord(raw)) throw new Error(`${where}: expected an object`);
  onlyKeys(raw, ['name', 'baseUrl', 'auth', 'timeoutMs'], where);
  const name = nonEmptyString(raw.name, `${where}.name`);
  // "local" is how a request says "here"; a node of that name could never be reached.
  if (name === LOCAL) throw new Error(`${where}.name: "${LOCAL}" is reserved for this server`);
  const at = `remote node "${name}"`;
  const baseUrl = parseBaseUrl(raw.baseUrl, at);
  const auth = raw.auth === undefined ? undefined : parseAuth(raw.auth, `${at}: auth`);
  const timeoutMs = raw.timeoutMs;
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || !Number.isInteger(timeoutMs) || timeoutMs <= 0)) {
    throw new Error(`${at}: timeoutMs must be a positive integer`);
  }
  return { name, baseUrl, ...(auth === undefined ? {} : { auth }), ...(timeoutMs === undefined ? {} : { timeoutMs }) };
}

function parseBaseUrl(raw: unknown, at: string): string {
  const text = nonEmptyString(raw, `${at}: baseUrl`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${at}: baseUrl "${text}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${at}: baseUrl must be http or https, not ${url.protocol.slice(0, -1)}`);
  // The request's own path and query are appended, so the base can carry neither.
  if (url.search !== '' || url.hash !== '') throw new Error(`${at}: baseUrl must not have a query or fragment`);
  // fetch refuses such URLs at the first request; saying so at start is kinder.
  if (url.username !== '' || url.password !== '') throw new Error(`${at}: put credentials in auth, not in baseUrl`);
  return text.replace(/\/+$/, '');
}

function parseAuth(raw: unknown, at: string): NonNullable<RemoteNode['auth']> {
  if (!isRecord(raw)) throw new Error(`${at} must be an object`);
  onlyKeys(raw, ['basic', 'token'], at);
  if (raw.basic !== undefined && raw.token !== undefined) throw new Error(`${at}: give basic or token, not both`);
  if (raw.token !== undefined) return { token: nonEmptyString(raw.token, `${at}.token`) };
  if (raw.basic === undefined) return {};
  if (!isRecord(raw.basic)) throw new Error(`${at}.basic must be an object`);
  onlyKeys(raw.basic, ['username', 'password'], `${at}.basic`);
  const username = nonEmptyString(raw.basic.username, `${at}.basic.username`);
  // Basic credentials are "user:password"; a colon in the user would shift the split (RFC 7617).
  if (username.includes(':')) throw new Error(`${at}.basic.username must not contain ":"`);
  if (typeof raw.basic.password !== 'string') throw new Error(`${at}.basic.password must be a string`);
  return { basic: { username, password: raw.basic.password } };
}
