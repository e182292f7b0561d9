/**
 * A worker (a Kubernetes node) as the page shows it: its heartbeat health in words and tone,
 * and its labels with the cluster's own (kubernetes.io, k8s.io) after the ones people set.
 */
import type { Tone } from '../../lib/status.ts';

const HEALTH: Readonly<Record<string, { readonly text: string; readonly tone: Tone }>> = {
  WORKER_HEALTH_STATUS_HEALTHY: { text: 'Healthy', tone: 'success' },
  WORKER_HEALTH_STATUS_WARNING: { text: 'Late heartbeat', tone: 'warning' },
  WORKER_HEALTH_STATUS_UNHEALTHY: { text: 'Unhealthy', tone: 'failure' },
};

export function healthLook(token: string): { readonly text: string; readonly tone: Tone } {
  return (
    HEALTH[token] ?? { text: token.replace(/^WORKER_HEALTH_STATUS_/, '').toLowerCase() || 'Unknown', tone: 'neutral' }
  );
}

/** A label the cluster sets on every node (its name, OS, architecture, roles), not a person. */
export function isSystemLabel(key: string): boolean {
  const prefix = key.includes('/') ? key.slice(0, key.indexOf('/')) : '';
  return /(^|\.)(kubernetes\.io|k8s\.io)$/.test(prefix);
}

/** Labels as [key, value], people's first, each group by key. */
export function orderedLabels(labels: Readonly<Record<string, string>>): {
  readonly own: [string, string][];
  readonly system: [string, string][];
} {
  const entries = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { own: entries.filter(([key]) => !isSystemLabel(key)), system: entries.filter(([key]) => isSystemLabel(key)) };
}
