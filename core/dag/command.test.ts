import { describe, expect, it } from 'vitest';
import { quoteWord, splitCommand } from './command.ts';

describe('splitCommand', () => {
  const cases: { name: string; line: string; want: string[]; error?: RegExp }[] = [
    { name: 'splits plain words on whitespace', line: 'echo  hello\tworld', want: ['echo', 'hello', 'world'] },
    {
      name: 'keeps double-quoted text as one word without the quotes',
      line: 'echo "hello world"',
      want: ['echo', 'hello world'],
    },
    { name: 'keeps single-quoted text literally', line: `echo '$HOME "x"'`, want: ['echo', '$HOME "x"'] },
    {
      name: 'unescapes backslash-escaped quotes inside double quotes',
      line: 'echo "say \\"hi\\""',
      want: ['echo', 'say "hi"'],
    },
    { name: 'joins quoted and unquoted parts of one word', line: '--name="a b"c', want: ['--name=a bc'] },
    {
      name: 'keeps backtick spans verbatim for the runtime',
      line: 'echo `date +%s` done',
      want: ['echo', '`date +%s`', 'done'],
    },
    { name: 'keeps variable references unexpanded', line: 'echo ${A} $B', want: ['echo', '${A}', '$B'] },
    { name: 'treats a backslash outside quotes as an escape', line: 'echo a\\ b', want: ['echo', 'a b'] },
    { name: 'gives an empty quoted word', line: 'printf ""', want: ['printf', ''] },
    { name: 'reports an unterminated quote', line: 'echo "open', want: ['echo'], error: /unterminated quote/ },
    { name: 'reports an unterminated backtick', line: 'echo `date', want: ['echo'], error: /unterminated backtick/ },
    { name: 'gives no words for blank input', line: '   ', want: [] },
  ];
  it.each(cases)('$name', ({ line, want, error }) => {
    const got = splitCommand(line);
    expect(got.words).toEqual(want);
    if (error === undefined) expect(got.error).toBeUndefined();
    else expect(got.error).toMatch(error);
  });
});

describe('quoteWord', () => {
  const cases = [
    { name: 'leaves safe words alone', word: 'a/b-c.d=e', want: 'a/b-c.d=e' },
    { name: 'quotes words with spaces', word: 'a b', want: "'a b'" },
    { name: 'escapes single quotes', word: "it's", want: `'it'\\''s'` },
    { name: 'quotes the empty word', word: '', want: "''" },
  ];
  it.each(cases)('$name', ({ word, want }) => {
    expect(quoteWord(word)).toBe(want);
    expect(splitCommand(want).words).toEqual([word]);
  });
});
