/**
 * When a DAG next starts, computed from its schedule expressions as the operator does: croner,
 * 5 fields, a `CRON_TZ=`/`TZ=` prefix naming the zone, else UTC (the API's nextRun sort uses
 * the same default; docs/decisions/2026-11-24-web-ui.md says where that can differ).
 */
import { Cron } from 'croner';

const ZONE_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/;

/** An expression's cron fields and the zone its prefix names, if any. */
export function splitZone(expression: string): { readonly cron: string; readonly zone?: string } {
  const prefixed = ZONE_PREFIX.exec(expression.trim());
  const cron = (prefixed?.[2] ?? expression).trim();
  return prefixed?.[1] === undefined ? { cron } : { cron, zone: prefixed[1] };
}

function nextOf(expression: string, from: Date): Date | undefined {
  const { cron, zone } = splitZone(expression);
  try {
    return new Cron(cron, { paused: true, mode: '5-part', timezone: zone ?? 'UTC' }).nextRun(from) ?? undefined;
  } catch {
    // The server reports invalid expressions in the DAG's errors; here it simply has no next run.
    return undefined;
  }
}

/** The earliest next start of any expression, or undefined (no schedule, or none valid). */
export function nextRun(expressions: readonly string[], from: Date): Date | undefined {
  let earliest: Date | undefined;
  for (const expression of expressions) {
    const next = nextOf(expression, from);
    if (next !== undefined && (earliest === undefined || next < earliest)) earliest = next;
  }
  return earliest;
}
