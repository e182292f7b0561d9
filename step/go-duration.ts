/**
 * Go's time.ParseDuration, which Dagu's wait actions read their durations with: a sequence of
 * decimal numbers, each with a unit (ns, us, µs, μs, ms, s, m, h), an optional sign, "0" alone.
 * Pure; milliseconds as a number (fractions kept), or undefined when Go would refuse the text.
 */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

export function goDurationMs(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  while (rest !== '') {
    const part = PART.exec(rest);
    if (part === null) return undefined;
    total += Number(part[1]) * (UNIT_MS[part[2] ?? ''] ?? 0);
    rest = rest.slice(part[0].length);
  }
  return sign * total;
}
