/**
 * The HTML body of a notification: the run (name, id, status, times, params, error) and a
 * table of its steps (number, name, times, status, command, error), the facts Dagu's report
 * mail carries, in Kubedag's own markup. Every value is escaped. Pure.
 */
import type { Dag } from '../../core/dag/index.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

function row(cells: readonly string[], tag = 'td'): string {
  return `<tr>${cells.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('')}</tr>`;
}

function commandOf(dag: Dag, name: string): string {
  const step = dag.steps.find((s) => s.name === name);
  return step?.command ?? step?.call ?? '';
}

/**
 * Most bytes of step rows in a mail: the message travels in one environment variable of the
 * mail Pod, which Linux caps at 128 KiB. A run of thousands of steps lists its first ones and
 * says how many more there are.
 */
export const ROWS_BYTES = 64 * 1024;

export function boundedRows(rows: readonly string[], limit = ROWS_BYTES): string[] {
  let used = 0;
  const kept = rows.findIndex((r) => (used += r.length) > limit);
  if (kept === -1) return [...rows];
  return [
    ...rows.slice(0, kept),
    `<tr><td colspan="7">... and ${String(rows.length - kept)} more steps: see the run in Kubedag</td></tr>`,
  ];
}

/** Records in the DAG's step order (sealed records come back in the order they were sealed); others after. */
function stepsInOrder(dag: Dag, nodes: readonly RunNode[]): RunNode[] {
  const place = new Map(dag.steps.map((s, i) => [s.name, i]));
  return [...nodes].sort((a, b) => (place.get(a.name) ?? place.size) - (place.get(b.name) ?? place.size));
}

/** The body; `missingLogs` names steps whose attached log is only a note that it was not available. */
export function mailBody(dag: Dag, run: DagRunResource, missingLogs: readonly string[] = []): string {
  const status = run.status ?? {};
  const facts: [string, string][] = [
    ['DAG', dag.name],
    ['Run ID', run.spec.dagRunId ?? ''],
    ['Status', status.statusLabel ?? ''],
    ['Started at', status.startedAt ?? ''],
    ['Finished at', status.finishedAt ?? ''],
    ['Params', status.params ?? ''],
    ['Error', status.error ?? ''],
  ];
  const steps = boundedRows(
    stepsInOrder(dag, status.nodes ?? []).map((n, i) =>
      row([
        String(i + 1),
        n.name,
        n.startedAt ?? '',
        n.finishedAt ?? '',
        n.statusLabel,
        commandOf(dag, n.name),
        n.error ?? '',
      ]),
    ),
  );
  return [
    '<!DOCTYPE html>',
    '<html><head><meta charset="UTF-8"><style>table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}</style></head><body>',
    `<h2>${escapeHtml(dag.name)}</h2>`,
    `<table>${facts.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`).join('')}</table>`,
    '<h3>Steps</h3>',
    `<table>${row(['#', 'Step', 'Started at', 'Finished at', 'Status', 'Command', 'Error'], 'th')}${steps.join('')}</table>`,
    ...(missingLogs.length === 0
      ? []
      : [
          `<p>The logs of these steps were not available when this mail was sent: ${escapeHtml(missingLogs.join(', '))}.</p>`,
        ]),
    '</body></html>',
  ].join('\n');
}
