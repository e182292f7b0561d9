/**
 * What the app and its route groups are built from. A module of its own so that app.ts,
 * server.ts and the route modules share these types without importing one another.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../core/log.ts';
import type { AuditLog } from './audit.ts';
import type { Cluster } from './cluster.ts';

export interface AppDeps {
  readonly version: string;
  readonly clock: () => Date;
  /** Undefined when healthy, else why not (Kubernetes API unreachable, no operator leader). */
  readonly health: () => Promise<string | undefined>;
  /** Largest request body in bytes. */
  readonly bodyLimit?: number;
  /** Where requests and faults are logged, each line with its request's id; default: nowhere. */
  readonly logger?: Logger;
  /** The cluster behind the resource routes; without it they answer 503. */
  readonly cluster?: Cluster;
  readonly buildDate?: string;
  /**
   * Hooks that must run before any route: authentication (onRequest) and remoteNode
   * forwarding (preValidation). Given the app before its routes exist.
   */
  readonly plugins?: readonly ((app: FastifyInstance) => void)[];
  /** The built web UI's folder, served at `/`; without it only the API is served. */
  readonly uiDir?: string;
  /** Where audit records go (audit.ts); default: nowhere. */
  readonly audit?: AuditLog;
  /** fastify's trustProxy: whose X-Forwarded-For decides request.ip, the audit record's source (config.ts). */
  readonly trustProxy?: TrustProxy;
}

/** `true` (any proxy), a number of hops, or the proxies' addresses and CIDR ranges; false: none. */
export type TrustProxy = boolean | number | readonly string[];

/** What every group of resource routes is registered with. */
export interface ResourceRouteOptions {
  readonly cluster: Cluster;
  readonly clock: () => Date;
}
