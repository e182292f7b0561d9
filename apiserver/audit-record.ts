/**
 * What an audit record says about one API request, worked out from plain facts about it (no
 * fastify objects), so that which requests are audited and what their records hold are tested
 * as tables (docs/audit.md). audit.ts gathers the facts and writes the record.
 *
 * Never in a record: credentials (the Authorization header, cookies), and request bodies. A
 * body is described by its size, the fields it had, and for a DAG spec its size and SHA-256
 * (which matches the file a person committed); params are sized only, since people pass
 * passwords as params. The few body values that are kept are names, ids and flags from an
 * allowlist, which say what was changed and cannot hold a secret of any length.
 */
import { createHash } from 'node:crypto';
import type { Caller, CallerMethod } from './caller.ts';
import type { Permission } from './permissions.ts';

/** Methods that change nothing by the contract; a route that does (GET .../dequeue) says so by its permission. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const CHANGING: ReadonlySet<Permission> = new Set(['run', 'write', 'delete']);

export interface RouteFacts {
  readonly method: string;
  /** The route's declared permission; undefined when no route matched (a 404). */
  readonly permission?: Permission;
  /** A route's own say (POST /dags/validate only reads: false). */
  readonly audit?: boolean;
}

/**
 * Every request that changes something or tries to: any method but GET, HEAD and OPTIONS
 * (refused, unknown path and 405 included), and any request to a route that needs the run, write
 * or delete permission whatever its method. A route may opt out only by declaring so.
 */
export function isAudited(route: RouteFacts): boolean {
  if (route.audit !== undefined) return route.audit;
  if (route.permission !== undefined && CHANGING.has(route.permission)) return true;
  return !SAFE_METHODS.has(route.method.toUpperCase());
}

/** Which credentials a request presented, from the Authorization header's scheme alone. */
export type Presented = 'none' | 'basic' | 'bearer' | 'other';

export function presented(authorization: string | undefined): Presented {
  const scheme = /^\s*([A-Za-z]+)/.exec(authorization ?? '')?.[1]?.toLowerCase();
  if (scheme === undefined) return 'none';
  return scheme === 'basic' || scheme === 'bearer' ? scheme : 'other';
}

export interface RequestFacts extends RouteFacts {
  /** The route's pattern as fastify has it (`/api/v2/dags/:fileName/start`); undefined for no route. */
  readonly route?: string;
  /** The path asked, without its query. */
  readonly path: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  /** The body as the route saw it (validated); undefined when it had none or it was refused unread. */
  readonly body: unknown;
  /** The Content-Length the request declared. */
  readonly bodyBytes?: number;
  readonly caller: Caller;
  readonly presented: Presented;
  readonly ip: string;
  readonly requestId: string;
  readonly status: number;
  /** The contract's error code of an answer that is not a success. */
  readonly errorCode?: string;
  /** The run id a start answered with (a generated one is known only there). */
  readonly answeredRunId?: string;
  readonly durationMs: number;
}

export interface AuditTarget {
  fileName?: string;
  newFileName?: string;
  dagName?: string;
  dagRunId?: string;
  /** A retry or reschedule's new run, beside the run in the path. */
  newDagRunId?: string;
  subDagRunId?: string;
  step?: string;
  remoteNode?: string;
}

export interface AuditRecord {
  readonly kind: 'audit';
  readonly requestId: string;
  readonly identity: {
    readonly user: string;
    readonly groups: readonly string[];
    readonly method: CallerMethod;
    readonly presented: Presented;
  };
  readonly source: { readonly ip: string };
  /** The route in OpenAPI form (`POST /api/v2/dags/{fileName}/start`), or `POST (no route)`. */
  readonly operation: string;
  readonly path: string;
  readonly target: AuditTarget;
  readonly request: {
    readonly bytes?: number;
    readonly fields: readonly string[];
    readonly specBytes?: number;
    readonly specSha256?: string;
    readonly paramsBytes?: number;
    readonly values: Readonly<Record<string, string | number | boolean>>;
  };
  readonly outcome: { readonly status: number; readonly code?: string };
  readonly durationMs: number;
}

/** Longest text kept from a request: ids and names are far shorter, and a record stays one line. */
const MAX_TEXT = 256;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value.slice(0, MAX_TEXT) : undefined;

/** Body values kept as they are: what a change was (suspend or resume, the status set), never free text. */
const KEPT_VALUES: Readonly<Record<string, 'boolean' | 'number' | 'string'>> = {
  suspend: 'boolean',
  singleton: 'boolean',
  status: 'number',
  queue: 'string',
};

function keptValues(body: Readonly<Record<string, unknown>>): Record<string, string | number | boolean> {
  const values: Record<string, string | number | boolean> = {};
  for (const [key, type] of Object.entries(KEPT_VALUES)) {
    const value = body[key];
    if (typeof value === type) values[key] = type === 'string' ? (text(value) ?? '') : (value as number | boolean);
  }
  return values;
}

const bytes = (value: string): number => Buffer.byteLength(value, 'utf8');

function described(body: unknown, declared: number | undefined): AuditRecord['request'] {
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const { spec, params } = fields;
  return {
    ...(declared === undefined ? {} : { bytes: declared }),
    fields: Object.keys(fields).sort(),
    ...(typeof spec === 'string'
      ? { specBytes: bytes(spec), specSha256: createHash('sha256').update(spec, 'utf8').digest('hex') }
      : {}),
    ...(typeof params === 'string' ? { paramsBytes: bytes(params) } : {}),
    values: keptValues(fields),
  };
}

/** `/api/v2/dags/:fileName` as the OpenAPI document writes it: `/api/v2/dags/{fileName}`. */
export function operationOf(method: string, route: string | undefined): string {
  return route === undefined ? `${method} (no route)` : `${method} ${route.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
}

function targetOf(facts: RequestFacts): AuditTarget {
  const { params, query } = facts;
  const body = typeof facts.body === 'object' && facts.body !== null ? (facts.body as Record<string, unknown>) : {};
  const pathRunId = text(params.dagRunId);
  // POST /dags names the new file in `name`; elsewhere a body's `name` is a DAG name (inline runs).
  const createsDag = facts.route !== undefined && /\/dags$/.test(facts.route);
  const askedRunId = text(body.dagRunId) ?? facts.answeredRunId;
  const remoteNode = text(query.remoteNode);
  const target: AuditTarget = {
    ...(createsDag
      ? { fileName: text(body.name) }
      : { fileName: text(params.fileName), dagName: text(params.name) ?? text(body.dagName) ?? text(body.name) }),
    newFileName: text(body.newFileName),
    dagRunId: pathRunId ?? askedRunId,
    newDagRunId: pathRunId === undefined || askedRunId === pathRunId ? undefined : askedRunId,
    subDagRunId: text(params.subDAGRunId),
    step: text(params.stepName) ?? text(body.stepName),
    remoteNode: remoteNode === 'local' ? undefined : remoteNode,
  };
  // Only what is known: absent fields say "not applicable", never an empty name.
  return Object.fromEntries(Object.entries(target).filter(([, value]) => value !== undefined));
}

export function auditRecord(facts: RequestFacts): AuditRecord {
  return {
    kind: 'audit',
    requestId: facts.requestId,
    identity: {
      user: facts.caller.user,
      groups: facts.caller.groups,
      method: facts.caller.method,
      presented: facts.presented,
    },
    source: { ip: facts.ip },
    operation: operationOf(facts.method, facts.route),
    path: facts.path.slice(0, MAX_TEXT * 2),
    target: targetOf(facts),
    request: described(facts.body, facts.bodyBytes),
    outcome: { status: facts.status, ...(facts.errorCode === undefined ? {} : { code: facts.errorCode }) },
    durationMs: Math.round(facts.durationMs * 1000) / 1000,
  };
}
