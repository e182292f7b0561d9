/**
 * What a route needs from its caller. Every route declares one in its `config`, so that the
 * authentication hook decides from the route table, never from a list of paths kept elsewhere.
 * - public: no credentials (health, metrics, the OpenAPI document)
 * - read: any GET of DAGs, runs, logs, queues, workers
 * - run: start, enqueue, inline runs, stop, stop-all, retry, reschedule, dequeue, suspend, step status
 * - write: create DAGs, PUT spec, rename
 * - delete: delete DAGs
 */
export type Permission = 'public' | 'read' | 'run' | 'write' | 'delete';

export const PERMISSIONS: readonly Permission[] = ['public', 'read', 'run', 'write', 'delete'];

declare module 'fastify' {
  interface FastifyContextConfig {
    permission?: Permission;
  }
}
