/**
 * One watch request to the Kubernetes API, and how it ended. @kubernetes/client-node's Watch
 * aborts any watch that goes 30 s without a byte (a fixed, private timer), and every quiet
 * resource goes that long between bookmarks: each informer was cut twice a minute. Here the
 * server is asked to end the watch itself (`timeoutSeconds`, as client-go's reflector does)
 * and the client gives up only `graceMs` after that: a watch still open then is stalled (a
 * dead connection that no byte will ever cross). Authentication and the connection pool are
 * the KubeConfig's own (`applySecurityAuthentication`, core/kube/connections.ts); undici's
 * per-request body and headers timeouts are off, since the deadline covers both.
 */
import { HttpMethod, RequestContext, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import { request } from 'undici';

/** How a watch ended; `kind` is what the informer decides on (core/kube/watch-policy.ts). */
export type WatchEnd =
  /** The server ended the response: its timeoutSeconds passed, or it is shutting down. */
  | { readonly kind: 'closed' }
  /** The deadline (timeoutSeconds + grace) passed with the response still open. */
  | { readonly kind: 'stalled'; readonly afterMs: number }
  /** The server refused the watch (an HTTP status) or ended it with an ERROR event. */
  | { readonly kind: 'status'; readonly code: number; readonly reason: string }
  /** The connection failed or broke, or a line was not a watch event. */
  | { readonly kind: 'broken'; readonly reason: string }
  /** This process cancelled it. */
  | { readonly kind: 'cancelled' };

export interface WatchOutcome {
  readonly end: WatchEnd;
  /** Events received, bookmarks included. */
  readonly events: number;
  readonly lastedMs: number;
}

export interface WatchRequest {
  readonly kc: KubeConfig;
  /** e.g. `/api/v1/namespaces/x/pods`. */
  readonly path: string;
  /** resourceVersion, selectors, allowWatchBookmarks...; `watch` and `timeoutSeconds` are set here. */
  readonly query: Readonly<Record<string, string | boolean | undefined>>;
  /** The server ends the watch after this long. */
  readonly timeoutSeconds: number;
  /** How long after timeoutSeconds a watch still open counts as stalled. */
  readonly graceMs: number;
  /** Called for every event but ERROR (which ends the watch as `status`). */
  readonly onEvent: (type: string, object: KubernetesObject) => void;
  readonly now?: () => number;
}

export interface OpenWatch {
  readonly done: Promise<WatchOutcome>;
  cancel(): void;
}

interface WatchLine {
  readonly type?: unknown;
  readonly object?: { readonly code?: unknown; readonly message?: unknown } & KubernetesObject;
}

const STALLED = Symbol('stalled');
const CANCELLED = Symbol('cancelled');

export function startWatch(watch: WatchRequest): OpenWatch {
  const now = watch.now ?? Date.now;
  const started = now();
  const controller = new AbortController();
  const deadlineMs = watch.timeoutSeconds * 1000 + watch.graceMs;
  const timer = setTimeout(() => {
    controller.abort(STALLED);
  }, deadlineMs);
  timer.unref();
  let events = 0;
  const run = async (): Promise<WatchEnd> => {
    try {
      return await stream(watch, controller.signal, () => (events += 1));
    } catch (error) {
      if (controller.signal.reason === STALLED) return { kind: 'stalled', afterMs: deadlineMs };
      if (controller.signal.reason === CANCELLED) return { kind: 'cancelled' };
      return { kind: 'broken', reason: describe(error) };
    } finally {
      clearTimeout(timer);
      // A watch ended by an ERROR event or a bad line still has its response open.
      controller.abort(CANCELLED);
    }
  };
  return {
    done: run().then((end) => ({ end, events, lastedMs: now() - started })),
    cancel: () => {
      controller.abort(CANCELLED);
    },
  };
}

async function stream(watch: WatchRequest, signal: AbortSignal, counted: () => void): Promise<WatchEnd> {
  const server = watch.kc.getCurrentCluster()?.server;
  if (server === undefined) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(server + watch.path);
  for (const [key, value] of Object.entries(watch.query))
    if (value !== undefined) url.searchParams.set(key, String(value));
  url.searchParams.set('watch', 'true');
  url.searchParams.set('timeoutSeconds', String(watch.timeoutSeconds));
  const context = new RequestContext(url.toString(), HttpMethod.GET);
  await watch.kc.applySecurityAuthentication(context);
  const response = await request(url, {
    method: 'GET',
    headers: { ...context.getHeaders(), accept: 'application/json' },
    dispatcher: context.getDispatcher(),
    signal,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    return {
      kind: 'status',
      code: response.statusCode,
      reason: statusMessage(text) ?? `HTTP ${String(response.statusCode)}`,
    };
  }
  for await (const line of lines(response.body)) {
    const event = parse(line);
    if (event === undefined) return { kind: 'broken', reason: `not a watch event: ${line.slice(0, 80)}` };
    counted();
    if (event.type === 'ERROR') return errorEnd(event.object);
    if (typeof event.type === 'string' && event.object !== undefined) watch.onEvent(event.type, event.object);
  }
  return { kind: 'closed' };
}

/** The non-empty lines of a body; a watch sends one JSON event per line. */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of body) {
    pending += decoder.decode(chunk, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline).trim();
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
      if (line !== '') yield line;
    }
  }
}

/** An ERROR event carries a Status: 410 Gone when the version is too old. */
function errorEnd(status: WatchLine['object']): WatchEnd {
  const code = typeof status?.code === 'number' ? status.code : 500;
  return {
    kind: 'status',
    code,
    reason: typeof status?.message === 'string' ? status.message : `ERROR event with code ${String(code)}`,
  };
}

function parse(line: string): WatchLine | undefined {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The message of a Status body, when the answer is one. */
function statusMessage(text: string): string | undefined {
  try {
    const status = JSON.parse(text) as { message?: unknown } | null;
    return typeof status?.message === 'string' && status.message !== '' ? status.message : undefined;
  } catch {
    return undefined;
  }
}

/** An error as one line: undici's and Node's carry the useful part in `code` and `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  const cause =
    error.cause instanceof Error && error.cause.message !== error.message ? `: ${describe(error.cause)}` : '';
  return `${error.message}${code === undefined || error.message.includes(code) ? '' : ` (${code})`}${cause}`;
}
