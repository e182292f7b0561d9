/** Small formatting rules every view shares: times, text order, where a run's log is served. */

/**
 * The instant of a Kubernetes timestamp. The client's types say Date, but objects from a watch
 * keep the JSON text (RFC 3339, with microseconds for a Lease's MicroTime).
 */
export function instant(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;
  return Number.isNaN(ms) ? undefined : ms;
}

const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
/** UTC with a fraction of a second: a Date's JSON, as stored runs and MicroTimes keep it. */
const FRACTION = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/;

/** ISO 8601 UTC with Z, seconds precision (behaviour-notes 1); "" for a time not set. */
export function iso(value: unknown): string {
  // What the operator writes is already in this form, or this form with a fraction to cut:
  // listings of thousands of runs skip parsing and formatting a Date for each time.
  if (typeof value === 'string') {
    if (CANONICAL.test(value)) return value;
    if (FRACTION.test(value)) return `${value.slice(0, 19)}Z`;
  }
  const ms = instant(value);
  return ms === undefined ? '' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Plain code-unit order: the same on every server, whatever its locale. */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Where the API serves a run's log: the contract's `log` field is a location, this is ours. */
export function runLogPath(name: string, dagRunId: string): string {
  return `/api/v2/dag-runs/${encodeURIComponent(name)}/${encodeURIComponent(dagRunId)}/log`;
}
