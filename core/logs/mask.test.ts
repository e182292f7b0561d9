import { describe, expect, it } from 'vitest';
import { MASK, maskSecrets } from './mask.ts';

describe('masking secrets', () => {
  const cases: { name: string; text: string; secrets: string[]; want: string }[] = [
    {
      name: 'replaces every occurrence of a value',
      text: 'token=abc123 again abc123',
      secrets: ['abc123'],
      want: `token=${MASK} again ${MASK}`,
    },
    { name: 'leaves text without secrets alone', text: 'nothing here', secrets: ['abc123'], want: 'nothing here' },
    { name: 'ignores empty secret values', text: 'abc', secrets: [''], want: 'abc' },
    {
      name: 'masks the longer of two overlapping values whole',
      text: 'pass-word-long',
      secrets: ['word', 'pass-word-long'],
      want: MASK,
    },
    {
      name: 'masks each line of a multi-line value on its own',
      text: 'line one\n---\nline two',
      secrets: ['line one\nline two'],
      want: `${MASK}\n---\n${MASK}`,
    },
    {
      name: 'treats regular expression characters literally',
      text: 'a.b*c a-b-c',
      secrets: ['a.b*c'],
      want: `${MASK} a-b-c`,
    },
  ];
  it.each(cases)('$name', ({ text, secrets, want }) => {
    expect(maskSecrets(text, secrets)).toBe(want);
  });
});
