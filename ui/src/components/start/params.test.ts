import { describe, expect, it } from 'vitest';
import { paramFields, paramsString, type ParamField } from './params.ts';

const named = (name: string, value: string): ParamField => ({ name, value, positional: false });
const positional = (name: string, value: string): ParamField => ({ name, value, positional: true });

describe('paramFields: the form from the DAG summary', () => {
  const cases: { name: string; names: string[]; defaultParams: string; want: ParamField[] }[] = [
    { name: 'a DAG without params has no fields', names: [], defaultParams: '', want: [] },
    {
      name: 'named params get their defaults',
      names: ['DATE', 'REGION'],
      defaultParams: '{"DATE":"today","REGION":"eu"}',
      want: [named('DATE', 'today'), named('REGION', 'eu')],
    },
    {
      name: 'positional params keep their place before named ones, as written',
      names: ['1', '2', 'MODE'],
      defaultParams: '{"1":"a","2":"b c","MODE":"fast"}',
      want: [positional('1', 'a'), positional('2', 'b c'), named('MODE', 'fast')],
    },
    {
      name: 'quotes, backslashes and unicode in defaults survive',
      names: ['Q'],
      defaultParams: '{"Q":"say \\"hi\\" \\\\ \\u00e9"}',
      want: [named('Q', 'say "hi" \\ é')],
    },
    {
      name: 'a param without a default is an empty field',
      names: ['NAME'],
      defaultParams: '{"NAME":""}',
      want: [named('NAME', '')],
    },
    {
      name: 'a name listed twice is one field with the value the run uses, the last',
      names: ['A', 'A'],
      defaultParams: '{"A":"1","A":"2"}',
      want: [named('A', '2')],
    },
    {
      name: 'run-time defaults are shown as written',
      names: ['DAY'],
      defaultParams: '{"DAY":"`date +%F`"}',
      want: [named('DAY', '`date +%F`')],
    },
  ];
  it.each(cases)('$name', ({ names, defaultParams, want }) => {
    expect(paramFields(names, defaultParams)).toEqual(want);
  });
});

describe('paramsString: the form back to the contract’s params string', () => {
  const defaults = [positional('1', 'a'), named('MODE', 'fast'), named('DAY', '`date +%F`')];
  const cases: { name: string; fields: ParamField[]; defaults?: ParamField[]; want: string | undefined }[] = [
    {
      name: 'nothing changed sends nothing, so the DAG runs with its own defaults',
      fields: defaults,
      defaults,
      want: undefined,
    },
    {
      name: 'only the changed fields are sent',
      fields: [positional('1', 'a'), named('MODE', 'slow'), named('DAY', '`date +%F`')],
      defaults,
      want: '{"MODE":"slow"}',
    },
    {
      name: 'a positional field is sent under its position, in the form’s order',
      fields: [positional('1', 'z'), named('MODE', 'slow'), named('DAY', '2026-01-01')],
      defaults,
      want: '{"1":"z","MODE":"slow","DAY":"2026-01-01"}',
    },
    {
      name: 'quotes and spaces are JSON-escaped',
      fields: [named('MSG', 'say "hi" there')],
      want: '{"MSG":"say \\"hi\\" there"}',
    },
    {
      name: 'without defaults every field is sent',
      fields: [named('A', '1'), named('B', '')],
      want: '{"A":"1","B":""}',
    },
    { name: 'no fields, nothing to send', fields: [], want: undefined },
  ];
  it.each(cases)('$name', ({ fields, defaults: before, want }) => {
    expect(paramsString(fields, before)).toBe(want);
  });

  it('reads back what it writes: fields -> params string -> fields', () => {
    const fields = [positional('1', 'x y'), named('Q', 'say "hi" \\ é'), named('EMPTY', '')];
    const text = paramsString(fields) ?? '';
    expect(
      paramFields(
        fields.map((f) => f.name),
        text,
      ),
    ).toEqual(fields);
  });
});
