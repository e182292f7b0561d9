/**
 * The few numbers of GET /api/v2/metrics (Prometheus text format) the system page shows. Only
 * samples are read (`name{label="value"} 12`); comments, timestamps and malformed lines are
 * skipped, so a newer server's extra metrics never break the page.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
}

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const found = SAMPLE.exec(line);
    if (found === null) continue;
    const [, name = '', labelText = '', valueText = ''] = found;
    const value = Number(valueText === '+Inf' ? Infinity : valueText === '-Inf' ? -Infinity : valueText);
    if (Number.isNaN(value) && valueText !== 'NaN') continue;
    const labels: Record<string, string> = {};
    for (const [, key = '', labelValue = ''] of labelText.matchAll(LABEL)) labels[key] = unescape(labelValue);
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The value of the first sample of `name` whose labels include `labels`. */
export function sampleValue(
  samples: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
