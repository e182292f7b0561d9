/**
 * Go's Duration.String at full precision, as Dagu's archive results write `duration`
 * (`time.Since(start).String()`, not rounded): `875ns`, `1.5µs`, `12.345678ms`, `1.2s`,
 * `2m3.000000004s`, `1h0m0s`. Pure.
 */
export function goDurationNs(ns: bigint): string {
  if (ns === 0n) return '0s';
  const sign = ns < 0n ? '-' : '';
  const abs = ns < 0n ? -ns : ns;
  const fraction = (value: bigint, unit: bigint, digits: number): string => {
    const whole = value / unit;
    const rest = (value % unit).toString().padStart(digits, '0').replace(/0+$/, '');
    return rest === '' ? whole.toString() : `${whole.toString()}.${rest}`;
  };
  if (abs < 1000n) return `${sign}${abs.toString()}ns`;
  if (abs < 1_000_000n) return `${sign}${fraction(abs, 1000n, 3)}µs`;
  if (abs < 1_000_000_000n) return `${sign}${fraction(abs, 1_000_000n, 6)}ms`;
  const hours = abs / 3_600_000_000_000n;
  const minutes = (abs % 3_600_000_000_000n) / 60_000_000_000n;
  const seconds = `${fraction(abs % 60_000_000_000n, 1_000_000_000n, 9)}s`;
  if (hours > 0n) return `${sign}${hours.toString()}h${minutes.toString()}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes.toString()}m${seconds}`;
  return `${sign}${seconds}`;
}
