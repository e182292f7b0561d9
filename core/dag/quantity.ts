/**
 * Kubernetes resource quantities (`500m`, `1.5Gi`, `2`, `1e3`) read the way the API server
 * reads them, so that a DAG which loads also passes the API server's checks: a signed decimal
 * number, then a binary suffix (Ki..Ei), a decimal one (n, u, m, k, M, G, T, P, E) or an
 * exponent (`e3`, `E-2`). Values are exact fractions of big integers: `0.1` and `100m` are
 * equal, which floating point would not promise.
 */

/** The value `numerator / denominator`; the denominator is positive. */
export interface Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

const FORM = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/;

const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** Exponents past this would only make huge numbers to compute; none is a real resource amount. */
const MAX_EXPONENT = 100;
/** The API server stores quantities in 63 bits and silently caps larger ones; we refuse them. */
const MAX_VALUE = 2n ** 63n - 1n;

/** A quantity's value, or a sentence saying why the text is not one. */
export function parseQuantity(text: string): Quantity | string {
  const match = FORM.exec(text.trim());
  if (match === null) return `"${text}" is not a quantity such as 500m, 1.5Gi, 2 or 1e3`;
  const [, sign = '', number = '', suffix = ''] = match;
  const [whole = '', fraction = ''] = number.split('.');
  const exponent = decimalExponent(suffix);
  if (Math.abs(exponent) > MAX_EXPONENT) return `"${text}" is out of range`;
  const digits = BigInt(`${whole}${fraction}` === '' ? '0' : `${whole}${fraction}`);
  const scale = exponent - fraction.length;
  const binary = 2n ** BigInt(BINARY[suffix] ?? 0);
  const numerator = (sign === '-' ? -digits : digits) * binary * 10n ** BigInt(Math.max(scale, 0));
  const denominator = 10n ** BigInt(Math.max(-scale, 0));
  if ((numerator < 0n ? -numerator : numerator) > MAX_VALUE * denominator)
    return `"${text}" is too large (at most 2^63-1)`;
  return { numerator, denominator };
}

/** The power of ten a suffix stands for: `e3` and `k` are both 3; binary suffixes have none. */
function decimalExponent(suffix: string): number {
  return /^[eE][+-]?\d/.test(suffix) ? Number(suffix.slice(1)) : (DECIMAL[suffix] ?? 0);
}

/** -1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

export function isNegative(quantity: Quantity): boolean {
  return quantity.numerator < 0n;
}

export function isWhole(quantity: Quantity): boolean {
  return quantity.numerator % quantity.denominator === 0n;
}

/** YAML reads `cpu: 2` or `cpu: 0.5` as numbers; Kubernetes wants the text. */
export function quantityText(value: string | number): string {
  return typeof value === 'number' ? String(value) : value.trim();
}
