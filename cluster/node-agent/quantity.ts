/**
 * Kubernetes resource quantities (`64Mi`, `1G`, `500m`, `1.5`, `2e3`) as numbers, and the
 * cgroup settings a container's limits become. Pure.
 */

const BINARY: Readonly<Record<string, number>> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const DECIMAL: Readonly<Record<string, number>> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** The value of a quantity, or undefined for text that is not one. */
export function parseQuantity(text: string): number | undefined {
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/.exec(text.trim());
  if (match === null) return undefined;
  const [, number = '', suffix = ''] = match;
  if (/^[eE]/.test(suffix)) return Number(number) * 10 ** Number(suffix.slice(1));
  const factor = BINARY[suffix] ?? DECIMAL[suffix];
  return factor === undefined ? undefined : Number(number) * factor;
}

/** The CFS period the kubelet uses, in microseconds. */
export const CPU_PERIOD_US = 100_000;
/** The smallest quota the kernel takes, as the kubelet rounds it up to. */
const MIN_QUOTA_US = 1000;

export interface Limits {
  readonly memoryBytes?: number;
  /** CFS quota per CPU_PERIOD_US. */
  readonly cpuQuotaUs?: number;
}

/** What a container's limits become, as the kubelet computes them (memory rounded up to bytes). */
export function containerLimits(limits: Readonly<Record<string, string>> | undefined): Limits {
  const memory = limits?.memory === undefined ? undefined : parseQuantity(limits.memory);
  const cpu = limits?.cpu === undefined ? undefined : parseQuantity(limits.cpu);
  return {
    ...(memory === undefined || memory <= 0 ? {} : { memoryBytes: Math.ceil(memory) }),
    ...(cpu === undefined || cpu <= 0 ? {} : { cpuQuotaUs: Math.max(MIN_QUOTA_US, Math.ceil(cpu * CPU_PERIOD_US)) }),
  };
}
