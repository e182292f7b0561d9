import { describe, expect, it } from 'vitest';
import { INLINE_OUTPUT_BYTES, keepOutput, type OutputFields } from './output-values.ts';

const big = 'x'.repeat(INLINE_OUTPUT_BYTES + 1);

describe('keeping a captured output', () => {
  const cases: {
    name: string;
    node: OutputFields;
    output?: string;
    value?: string;
    attempt: number;
    want: OutputFields;
  }[] = [
    {
      name: 'a step without output keeps what it had',
      node: { outputs: { A: '1' } },
      attempt: 0,
      want: { outputs: { A: '1' } },
    },
    {
      name: 'a small value goes into the status',
      node: {},
      output: 'A',
      value: 'hello',
      attempt: 0,
      want: { outputs: { A: 'hello' } },
    },
    {
      name: 'a value of exactly the inline limit still goes into the status',
      node: {},
      output: 'A',
      value: 'y'.repeat(INLINE_OUTPUT_BYTES),
      attempt: 0,
      want: { outputs: { A: 'y'.repeat(INLINE_OUTPUT_BYTES) } },
    },
    {
      name: 'a large value is only referenced, by attempt and size',
      node: {},
      output: 'A',
      value: big,
      attempt: 2,
      want: { outputRefs: { A: { attempt: 2, bytes: INLINE_OUTPUT_BYTES + 1 } } },
    },
    {
      name: 'a large value replaces an earlier small one',
      node: { outputs: { A: 'old', B: 'b' } },
      output: 'A',
      value: big,
      attempt: 1,
      want: { outputs: { B: 'b' }, outputRefs: { A: { attempt: 1, bytes: INLINE_OUTPUT_BYTES + 1 } } },
    },
    {
      name: 'a small value replaces an earlier large one',
      node: { outputRefs: { A: { attempt: 0, bytes: 99_999 } } },
      output: 'A',
      value: 'now small',
      attempt: 1,
      want: { outputs: { A: 'now small' } },
    },
    {
      name: 'multi-byte characters count in bytes, not characters',
      node: {},
      output: 'A',
      value: 'é'.repeat(INLINE_OUTPUT_BYTES / 2 + 1),
      attempt: 0,
      want: { outputRefs: { A: { attempt: 0, bytes: INLINE_OUTPUT_BYTES + 2 } } },
    },
  ];
  it.each(cases)('$name', ({ node, output, value, attempt, want }) => {
    expect(keepOutput(node, output, value, attempt)).toEqual(want);
  });
});
