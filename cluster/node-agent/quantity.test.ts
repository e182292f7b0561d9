import { describe, expect, it } from 'vitest';
import { containerLimits, parseQuantity } from './quantity.ts';

describe('parseQuantity', () => {
  const cases: { name: string; text: string; want: number | undefined }[] = [
    { name: 'reads binary suffixes', text: '64Mi', want: 64 * 2 ** 20 },
    { name: 'reads decimal suffixes', text: '1G', want: 1e9 },
    { name: 'reads millis', text: '500m', want: 0.5 },
    { name: 'reads a plain decimal', text: '1.5', want: 1.5 },
    { name: 'reads an exponent', text: '2e3', want: 2000 },
    { name: 'refuses an unknown suffix', text: '10Xi', want: undefined },
    { name: 'refuses text', text: 'lots', want: undefined },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(parseQuantity(text)).toBe(want);
  });
});

describe('containerLimits', () => {
  const cases: {
    name: string;
    limits: Record<string, string> | undefined;
    want: ReturnType<typeof containerLimits>;
  }[] = [
    { name: 'gives nothing for a container without limits', limits: undefined, want: {} },
    {
      name: 'turns memory into bytes and CPU into a quota per 100 ms period',
      limits: { memory: '64Mi', cpu: '500m' },
      want: { memoryBytes: 67108864, cpuQuotaUs: 50000 },
    },
    {
      name: 'rounds a tiny CPU limit up to the smallest quota the kernel takes',
      limits: { cpu: '1m' },
      want: { cpuQuotaUs: 1000 },
    },
    { name: 'ignores limits that are not cpu or memory', limits: { 'ephemeral-storage': '1Gi' }, want: {} },
  ];
  it.each(cases)('$name', ({ limits, want }) => {
    expect(containerLimits(limits)).toEqual(want);
  });
});
