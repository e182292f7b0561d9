import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (step: string) => loadDag(`steps:\n  - ${step}\n`, { fileName: 'schema' });
const errorsOf = (step: string): string[] => load(step).errors.map(formatIssue);

describe("Dagu 2.x's output_schema", () => {
  it.each([
    ['type: object', '{type: object, required: [a]}'],
    ['a list of the one type object', '{type: [object]}'],
    ['no type at all', '{properties: {a: {type: string}}}'],
    ['a local $ref to an object', '{$ref: "#/$defs/out", $defs: {out: {type: object}}}'],
    ['a $ref through definitions', '{$ref: "#/definitions/out", definitions: {out: {type: object}}}'],
    ['oneOf objects', '{oneOf: [{type: object}, {type: object, required: [a]}]}'],
  ])('keeps %s in the model', (_name, schema) => {
    const got = load(`{id: a, run: echo, output_schema: ${schema}}`);
    expect(got.errors.map(formatIssue)).toEqual([]);
    expect(got.dag.steps[0]?.outputSchema).toBeTypeOf('object');
  });

  it('reads a null output_schema as none', () => {
    const got = load('{id: a, run: echo, output_schema: null}');
    expect([got.errors, got.dag.steps[0]?.outputSchema]).toEqual([[], undefined]);
  });

  it.each([
    ['a string', '"schema.json"', 'output_schema must be an inline JSON Schema object'],
    ['a list', '[{type: object}]', 'output_schema must be an inline JSON Schema object'],
    ['type string', '{type: string}', 'output_schema must resolve to an object schema'],
    ['two types', '{type: [object, "null"]}', 'output_schema must resolve to an object schema'],
    [
      'a branch that is no object',
      '{anyOf: [{type: object}, {type: string}]}',
      'output_schema must resolve to an object schema',
    ],
    [
      'a $ref to nothing',
      '{$ref: "#/$defs/none"}',
      "output_schema is not a valid JSON Schema: can't resolve reference #/$defs/none from id #",
    ],
    [
      'a bad keyword value',
      '{type: object, required: 3}',
      'output_schema is not a valid JSON Schema: schema is invalid: data/required must be array',
    ],
  ])('refuses %s, in Dagu words where it has them', (_name, schema, want) => {
    expect(errorsOf(`{id: a, run: echo, output_schema: ${schema}}`)).toEqual([`steps[0].output_schema: ${want}`]);
  });

  it('refuses it on a sub-DAG step, deliberately, saying why', () => {
    expect(errorsOf('{action: dag.run, with: {dag: child}, output_schema: {type: object}}')).toEqual([
      "steps[0].output_schema: Dagu 2.x feature output_schema on a sub-DAG step is not supported: a sub-DAG step has no stdout in Kubedag (its work is the child run); check the child DAG's steps' output instead",
    ]);
  });
});
