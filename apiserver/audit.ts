/**
 * The audit trail: one JSON line of its own kind (`"kind":"audit"`) for every API request that
 * changes something or tries to (audit-record.ts says which and what a line holds;
 * docs/audit.md). Written when the answer has been sent, so the line has the outcome and the
 * duration; refused requests (401, 403, 400, 404, 409, 405) are written like the others, since
 * an attempt is what an auditor most wants to see.
 *
 * The sink is chosen by `--audit-log` (config.ts): stdout, stderr, a file, or off. A failing sink
 * never fails the request (the trail is written after the answer); its error goes to the log.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger } from 'pino';
import { auditRecord, isAudited, presented, type AuditRecord, type RouteFacts } from './audit-record.ts';
import type { Permission } from './permissions.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Whether this route's requests are audited; default: audit-record.ts isAudited. */
    audit?: boolean;
  }
}

/** Where audit records go, parsed from `--audit-log` (config.ts). */
export type AuditSinkConfig =
  | { readonly sink: 'off' }
  | { readonly sink: 'stdout' }
  | { readonly sink: 'stderr' }
  | { readonly sink: 'file'; readonly path: string };

export const AUDIT_SINK_TEXT = 'stdout|stderr|file:PATH|off';

/** `--audit-log`'s text; throws a message that names the setting. */
export function parseAuditSink(value: string, setting = 'audit-log'): AuditSinkConfig {
  if (value === 'off' || value === 'stdout' || value === 'stderr') return { sink: value };
  if (value.startsWith('file:') && value.length > 'file:'.length)
    return { sink: 'file', path: value.slice('file:'.length) };
  throw new Error(`${setting} must be one of ${AUDIT_SINK_TEXT}, not "${value}"`);
}

export interface AuditLog {
  write(record: AuditRecord): void;
  /** Opens the file again (after logrotate moved it: SIGHUP in main.ts); nothing for the other sinks. */
  reopen(): void;
  /** Writes what is buffered. */
  flush(): Promise<void>;
}

export const NO_AUDIT: AuditLog = { write: () => undefined, reopen: () => undefined, flush: () => Promise.resolve() };

/** Records into an array: for tests. */
export function memoryAudit(records: AuditRecord[]): AuditLog {
  return { write: (record) => records.push(record), reopen: () => undefined, flush: () => Promise.resolve() };
}

type Destination = DestinationStream & {
  reopen?: () => void;
  flush?: (cb?: (error?: Error) => void) => void;
  on?: (event: string, listener: (error: Error) => void) => void;
};

/**
 * The records as pino lines: always JSON (whatever `--log-format`: a trail is read by machines),
 * with an ISO 8601 `time`. `onError` hears of a sink that cannot be written (a full disk).
 */
export function openAuditLog(config: AuditSinkConfig, onError: (error: Error) => void = () => undefined): AuditLog {
  if (config.sink === 'off') return NO_AUDIT;
  // Written synchronously: records are few (changes, not reads), and a trail that loses its last
  // lines when the process dies is the wrong way round for an audit.
  const destination: Destination = pino.destination(
    config.sink === 'file'
      ? { dest: config.path, mkdir: true, append: true, sync: true }
      : { dest: config.sink === 'stdout' ? 1 : 2, sync: true },
  );
  destination.on?.('error', onError);
  const logger: Logger = pino(
    { level: 'info', base: { component: 'apiserver' }, timestamp: pino.stdTimeFunctions.isoTime },
    destination,
  );
  return {
    write: (record) => {
      logger.info(record, 'audit');
    },
    reopen: () => {
      destination.reopen?.();
    },
    flush: () =>
      new Promise((resolve) => {
        if (destination.flush === undefined) {
          resolve();
          return;
        }
        destination.flush(() => {
          resolve();
        });
      }),
  };
}

/** What only the answer tells: the error code, or the id of a run a start made. */
interface Answered {
  errorCode?: string;
  runId?: string;
}

/** Answers are small JSON objects; a larger one is no error body nor a start's answer. */
const MAX_SNIFFED = 4096;

function sniff(status: number, payload: unknown): Answered {
  if (typeof payload !== 'string' || payload.length > MAX_SNIFFED || !payload.startsWith('{')) return {};
  try {
    const body = JSON.parse(payload) as Record<string, unknown>;
    if (status >= 400) return typeof body.code === 'string' ? { errorCode: body.code } : {};
    return typeof body.dagRunId === 'string' ? { runId: body.dagRunId } : {};
  } catch {
    return {};
  }
}

/**
 * Adds the hooks at the root, before authentication, so that every request's answer (a 401
 * included) carries its id in `X-Request-Id` and every audited one is recorded.
 */
export function registerAudit(app: FastifyInstance, log: AuditLog): void {
  const answered = new WeakMap<FastifyRequest, Answered>();
  app.addHook('onRequest', (request, reply, done) => {
    // The id the audit record has (app.ts requestId: the caller's own when it sent a usable one).
    void reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    if (isAudited(routeFacts(request))) answered.set(request, sniff(reply.statusCode, payload));
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeFacts(request);
    if (isAudited(route)) {
      const answer = answered.get(request) ?? {};
      const length = Number(request.headers['content-length']);
      log.write(
        auditRecord({
          ...route,
          ...(request.is404 ? {} : { route: request.routeOptions.url }),
          path: request.url.split('?')[0] ?? '',
          params: (request.params ?? {}) as Record<string, unknown>,
          query: (request.query ?? {}) as Record<string, unknown>,
          body: request.body,
          ...(Number.isInteger(length) ? { bodyBytes: length } : {}),
          caller: request.caller,
          presented: presented(request.headers.authorization),
          ip: request.ip,
          requestId: request.id,
          status: reply.statusCode,
          ...(answer.errorCode === undefined ? {} : { errorCode: answer.errorCode }),
          ...(answer.runId === undefined ? {} : { answeredRunId: answer.runId }),
          durationMs: reply.elapsedTime,
        }),
      );
    }
    done();
  });
}

function routeFacts(request: FastifyRequest): RouteFacts {
  const config: { permission?: Permission; audit?: boolean } = request.is404 ? {} : request.routeOptions.config;
  return {
    method: request.method,
    ...(config.permission === undefined ? {} : { permission: config.permission }),
    ...(config.audit === undefined ? {} : { audit: config.audit }),
  };
}
