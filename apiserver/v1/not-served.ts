/**
 * /api/v1's operations that Kubedag does not serve (not-served-table.ts) answer 501
 * `not_implemented` in the contract's error shape, saying why. They are routes like any other:
 * listed in the served document (with their path parameters, so that it stays valid OpenAPI),
 * behind authentication (a caller without credentials learns nothing about them but 401), and
 * never relayed to a remote node, since the answer is this server's.
 */
import type { FastifyPluginCallback } from 'fastify';
import { ApiError } from '../errors.ts';
import { NOT_SERVED, type NotServedGroup } from './not-served-table.ts';

/**
 * Why each group is not served. Dagu's own product: Kubedag leaves these to Kubernetes or does
 * without. Two are Kubedag's choice about operations Dagu's workflow engine has (edit-retry,
 * resources).
 */
export const REASONS: Readonly<Record<NotServedGroup, string>> = {
  agent: "Dagu's agent chat and agent steps are not run by Kubedag",
  'api-keys':
    "Dagu's API keys are its own product; Kubedag takes static tokens, Kubernetes tokens or OIDC (docs/api-auth.md)",
  audit: "Dagu's audit log is its own product; Kubedag writes its audit records to a file or stdout (docs/audit.md)",
  auth: "Dagu's built-in users and sign-in are its own product; Kubedag takes static tokens, Kubernetes tokens or OIDC (docs/api-auth.md)",
  'edit-retry':
    'a Kubedag run runs the definition frozen when it was created, and a run cannot yet start with steps already done from another run; edit the DAG (PUT /dags/{fileName}/spec) and start it, or retry the run (docs/decisions/2026-11-29-v1-later.md)',
  events: "Dagu's event log is its own product; Kubedag's runs are Kubernetes resources with their own events",
  'human-tasks': 'human tasks beyond step approval are not run by Kubedag',
  incidents: "Dagu's incident providers and policies are its own product",
  license: "Dagu's licence is its own product; Kubedag has none to activate",
  notifications:
    "Dagu's notification channels and routes are its own product; a DAG's own mail settings are run as written",
  profiles: "Dagu's runtime profiles are its own product; Kubedag runs a step with the Pod settings its DAG gives",
  'remote-nodes': 'remote nodes are configured by KUBEDAG_REMOTE_NODES, not through the API',
  resources:
    "Kubedag keeps no samples of its hosts' CPU, memory and disk; on Kubernetes they come from the cluster's metrics (metrics-server, Prometheus), and the operator and the API server export their own on /metrics (docs/decisions/2026-11-29-v1-later.md)",
  secrets: "Dagu's secret store is its own product; Kubedag's steps read Kubernetes Secrets",
  settings: "Dagu's server and DAG settings are its own product; Kubedag is configured by its environment and the DAG",
  sync: "Dagu's Git sync is its own product; Kubedag's DAGs are resources to apply with kubectl, Helm or GitOps",
  tunnel: "Dagu's tunnel is its own product",
  users: "Dagu's built-in users are its own product; Kubedag's callers are those its authentication accepts",
  views: "Dagu's saved views are its own product",
  webhooks: "Dagu's DAG webhooks are its own product",
  wiki: "Dagu's wiki is its own product",
  workspaces: "Dagu's workspaces are its own product; a Kubedag server serves one namespace",
};

/** The path parameters of a fastify path: `/users/:userId` -> ['userId']. Pure. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:(\w+)/g)].map((match) => match[1] ?? '');
}

export const notServedRoutes: FastifyPluginCallback = (app, _options, done) => {
  for (const [method, url, operationId, group] of NOT_SERVED) {
    const names = pathParams(url);
    const params =
      names.length === 0
        ? {}
        : {
            params: {
              type: 'object',
              properties: Object.fromEntries(names.map((name) => [name, { type: 'string' }])),
              required: names,
            },
          };
    const reason = REASONS[group];
    app.route({
      method,
      url,
      config: { permission: 'read', errors: ['not_implemented'] },
      schema: { tags: ['not served'], operationId, summary: `Not served by Kubedag: ${reason}.`, ...params },
      handler: () => {
        throw new ApiError(
          'not_implemented',
          `${method} ${url.replace(/:(\w+)/g, '{$1}')} is not served by Kubedag: ${reason}`,
          { details: { operationId, group } },
        );
      },
    });
  }
  done();
};
