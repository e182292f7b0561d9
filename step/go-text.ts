/**
 * Text as Dagu's Go code writes it, so that a step's output reads the same in Kubedag:
 * encoding/json's Marshal and MarshalIndent (object keys sorted, `<`, `>`, `&` and the line
 * separators escaped), fmt's `%v` for a float64, and net/http's Header.Write. Pure.
 */

/** Objects whose keys keep their order, as a Go struct's fields do; plain objects are sorted like Go maps. */
export class Ordered {
  readonly entries: readonly (readonly [string, unknown])[];
  constructor(entries: readonly (readonly [string, unknown])[]) {
    this.entries = entries;
  }
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function goString(text: string): string {
  const escaped = text.replace(
    // eslint-disable-next-line no-control-regex
    /["\\\u0000-\u001f<>&\u2028\u2029]/g,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${escaped}"`;
}

/** Go sorts map keys by their UTF-8 bytes. */
function byBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** encoding/json's float64: JavaScript's shortest form agrees, exponent thresholds included. */
function goNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`json: unsupported value: ${String(value)}`);
  return Object.is(value, -0) ? '-0' : String(value);
}

/** json.Marshal (indent '') or json.MarshalIndent(value, '', indent). */
export function goJson(value: unknown, indent = '', depth = 0): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goString(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  const inner = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const outer = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${value.map((item) => `${inner}${goJson(item, indent, depth + 1)}`).join(',')}${outer}]`;
  }
  const entries =
    value instanceof Ordered
      ? value.entries
      : Object.entries(value as Record<string, unknown>).sort(([a], [b]) => byBytes(a, b));
  if (entries.length === 0) return '{}';
  const colon = indent === '' ? ':' : ': ';
  return `{${entries.map(([key, item]) => `${inner}${goString(key)}${colon}${goJson(item, indent, depth + 1)}`).join(',')}${outer}}`;
}

/** fmt's `%v` of a float64: the shortest digits, in exponent form below 1e-4 and from 1e6 on (`1e+06`). */
export function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  // strconv's 'g' with the shortest precision switches to %e outside [1e-4, 1e6).
  if (exponent < -4 || exponent >= 6)
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  return String(value);
}

/** net/http Header names in canonical form: `content-type` -> `Content-Type`. */
export function canonicalHeader(name: string): string {
  return name
    .toLowerCase()
    .replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);
}

/**
 * Header.Write: one `Name: value\r\n` line per value, names sorted; newlines inside a value
 * become spaces. Go's client moves Transfer-Encoding out of the headers, so it is not written.
 */
export function goHeaders(headers: Readonly<Record<string, string | readonly string[] | undefined>>): string {
  const lines = Object.entries(headers)
    .filter(([name]) => name.toLowerCase() !== 'transfer-encoding')
    .map(
      ([name, value]) =>
        [canonicalHeader(name), value === undefined ? [] : typeof value === 'string' ? [value] : value] as const,
    )
    .sort(([a], [b]) => byBytes(a, b));
  return lines
    .flatMap(([name, values]) => values.map((v) => `${name}: ${v.replace(/[\r\n]+/g, ' ').trim()}\r\n`))
    .join('');
}
