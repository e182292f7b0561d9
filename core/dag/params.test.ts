import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import type { ParamDef } from './model.ts';
import { applyParamOverrides, applyParamsSchema, encodeParams, parseParamOverrides, tokenizeParams } from './params.ts';

const named = (name: string, value: string): ParamDef => ({ name, value, positional: false });
const positional = (n: number, value: string): ParamDef => ({ name: String(n), value, positional: true });

describe('tokenizeParams', () => {
  const cases: { name: string; text: string; want: { name?: string; value: string }[] }[] = [
    {
      name: 'reads NAME=value tokens',
      text: 'A=1 B=two',
      want: [
        { name: 'A', value: '1' },
        { name: 'B', value: 'two' },
      ],
    },
    { name: 'reads bare values as positional', text: 'first second', want: [{ value: 'first' }, { value: 'second' }] },
    {
      name: 'groups a double-quoted value with spaces',
      text: 'MSG="hello world" X=1',
      want: [
        { name: 'MSG', value: 'hello world' },
        { name: 'X', value: '1' },
      ],
    },
    {
      name: 'unescapes quotes inside double quotes (the reference lost a backslash here)',
      text: 'B="x \\"y\\""',
      want: [{ name: 'B', value: 'x "y"' }],
    },
    { name: 'keeps single-quoted text literally', text: "P='$HOME a'", want: [{ name: 'P', value: '$HOME a' }] },
    {
      name: 'keeps a backtick value verbatim for the runtime',
      text: 'D=`date +%F`',
      want: [{ name: 'D', value: '`date +%F`' }],
    },
    { name: 'keeps = inside values', text: 'Q=a=b', want: [{ name: 'Q', value: 'a=b' }] },
    { name: 'treats a quoted NAME=value as a positional value', text: '"A=1"', want: [{ value: 'A=1' }] },
    { name: 'treats a flag as a positional value', text: '--date=2026-01-01', want: [{ value: '--date=2026-01-01' }] },
    { name: 'gives nothing for blank text', text: '  ', want: [] },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    const got = tokenizeParams(text);
    expect(got.error).toBeUndefined();
    expect(got.tokens).toEqual(want);
  });

  it('reports an unterminated quote', () => {
    expect(tokenizeParams('A="open').error).toBe('unterminated quote "');
  });
});

describe('params defaults in a DAG file', () => {
  const cases: { name: string; params: string; want: ParamDef[] }[] = [
    {
      name: 'a token string numbers positional values among themselves',
      params: '"a A=1 b"',
      want: [positional(1, 'a'), named('A', '1'), positional(2, 'b')],
    },
    {
      name: 'a list mixes bare names, tokens and single-key maps',
      params: '[X, {Y: 2}, "Z=3 W=4", "pos"]',
      want: [named('X', ''), named('Y', '2'), named('Z', '3'), named('W', '4'), named('pos', '')],
    },
    {
      name: 'a list entry that is not a bare name is read as tokens',
      params: '["a b", "\\"quoted\\""]',
      want: [positional(1, 'a'), positional(2, 'b'), positional(3, 'quoted')],
    },
    {
      name: 'an inline schema fills its defaults at load',
      params: '{schema: {type: object, properties: {N: {type: integer, default: 5}}}, values: {M: x}}',
      want: [named('M', 'x'), named('N', '5')],
    },
    {
      name: 'a mapping is taken in key order',
      params: '{b: 2, a: true, c: null}',
      want: [named('a', 'true'), named('b', '2'), named('c', '')],
    },
    {
      name: 'the schema form reads its values',
      params: '{schema: {type: object}, values: {N: 1}}',
      want: [named('N', '1')],
    },
  ];
  it.each(cases)('$name', ({ params, want }) => {
    const load = loadDag(`params: ${params}\nsteps: [echo]`, { fileName: 'p' });
    expect(load.errors).toEqual([]);
    expect(load.dag.params.entries).toEqual(want);
  });

  it('keeps a schema reference for the runtime to resolve', () => {
    expect(loadDag('params: {schema: ./params.schema.json}\nsteps: [echo]', { fileName: 'p' }).dag.params.schema).toBe(
      './params.schema.json',
    );
  });
});

describe('parseParamOverrides', () => {
  const cases: { name: string; text: string; want: { name?: string; value: string }[] }[] = [
    {
      name: 'a JSON object gives named values',
      text: '{"A":"x","N":3,"B":true,"Z":null}',
      want: [
        { name: 'A', value: 'x' },
        { name: 'N', value: '3' },
        { name: 'B', value: 'true' },
        { name: 'Z', value: '' },
      ],
    },
    {
      name: 'nested JSON values stay compact JSON',
      text: '{"CFG":{"a":[1,2]}}',
      want: [{ name: 'CFG', value: '{"a":[1,2]}' }],
    },
    { name: 'a JSON array gives positional values', text: ' ["a", 2]', want: [{ value: 'a' }, { value: '2' }] },
    {
      name: 'token text is read like the file form',
      text: 'A=1 "two words"',
      want: [{ name: 'A', value: '1' }, { value: 'two words' }],
    },
    {
      name: 'text that only looks like JSON is read as tokens',
      text: '{not json}',
      want: [{ value: '{not' }, { value: 'json}' }],
    },
    { name: 'an empty string overrides nothing', text: '', want: [] },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(parseParamOverrides(text).tokens).toEqual(want);
  });
});

describe('applyParamOverrides', () => {
  const defaults = [positional(1, 'a'), named('A', '1'), positional(2, 'b'), named('B', '2')];
  const cases: { name: string; overrides: string; want: ParamDef[] }[] = [
    {
      name: 'a named override replaces the same name in place',
      overrides: 'B=9',
      want: [positional(1, 'a'), named('A', '1'), positional(2, 'b'), named('B', '9')],
    },
    { name: 'a new name is appended', overrides: 'C=3', want: [...defaults, named('C', '3')] },
    {
      name: 'positional overrides replace positionals in order',
      overrides: 'x y z',
      want: [positional(1, 'x'), named('A', '1'), positional(2, 'y'), named('B', '2'), positional(3, 'z')],
    },
    {
      name: 'a positional override never replaces a named default',
      overrides: '["only"]',
      want: [positional(1, 'only'), named('A', '1'), positional(2, 'b'), named('B', '2')],
    },
    {
      name: 'a JSON key "2" replaces positional 2',
      overrides: '{"2":"second"}',
      want: [positional(1, 'a'), named('A', '1'), positional(2, 'second'), named('B', '2')],
    },
  ];
  it.each(cases)('$name', ({ overrides, want }) => {
    expect(applyParamOverrides(defaults, parseParamOverrides(overrides).tokens)).toEqual(want);
  });
});

describe('encodeParams', () => {
  it('keeps the effective order even for integer-like names', () => {
    expect(encodeParams([named('B', 'x'), positional(1, 'a'), named('A', '"q"')])).toBe(
      '{"B":"x","1":"a","A":"\\"q\\""}',
    );
  });

  it('is empty when there are no parameters', () => {
    expect(encodeParams([])).toBe('');
  });

  it('round-trips through parseParamOverrides', () => {
    const entries = [named('A', '1'), positional(1, 'p q')];
    expect(applyParamOverrides([], parseParamOverrides(encodeParams(entries)).tokens)).toEqual([
      positional(1, 'p q'),
      named('A', '1'),
    ]);
  });
});

describe('applyParamsSchema', () => {
  const schema = {
    type: 'object',
    properties: {
      COUNT: { type: 'integer', minimum: 1 },
      MODE: { type: 'string', enum: ['fast', 'full'], default: 'fast' },
    },
    required: ['COUNT'],
  };

  it('fills defaults after the given values', () => {
    expect(applyParamsSchema(schema, [named('COUNT', '3')])).toEqual({
      entries: [named('COUNT', '3'), named('MODE', 'fast')],
      errors: [],
    });
  });

  it('reports values that break the schema', () => {
    expect(applyParamsSchema(schema, [named('COUNT', '0'), named('MODE', 'slow')]).errors.map(formatIssue)).toEqual([
      'params.COUNT: must be >= 1',
      'params.MODE: must be equal to one of the allowed values',
    ]);
  });

  it('reports a missing required value', () => {
    expect(applyParamsSchema(schema, []).errors.map(formatIssue)).toEqual([
      "params: must have required property 'COUNT'",
    ]);
  });

  it('checks literal defaults in a DAG file at load', () => {
    const load = loadDag(
      'params: {schema: {type: object, properties: {N: {type: integer, maximum: 3}}}, values: {N: 9}}\nsteps: [echo]',
      { fileName: 'p' },
    );
    expect(load.errors.map(formatIssue)).toEqual(['params.N: must be <= 3']);
  });

  it('leaves defaults that are only known per run to the runtime', () => {
    const load = loadDag(
      'params: {schema: {type: object, properties: {N: {type: integer}}}, values: {N: "${X}"}}\nsteps: [echo]',
      { fileName: 'p' },
    );
    expect(load.errors).toEqual([]);
  });
});
