import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { schemaParamsAsOneX } from './dialect-params.ts';
import type { DagIssue } from './issues.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);

function rewrite(params: unknown): { want: unknown; errors: string[] } {
  const errors: DagIssue[] = [];
  const want = schemaParamsAsOneX(params, errors);
  return { want, errors: errors.map(formatIssue) };
}

describe('params as a JSON Schema in a 2.x file', () => {
  it.each([
    {
      name: 'an inline schema becomes the 1.x schema form, without readOnly',
      params: { type: 'object', readOnly: true, properties: { N: { type: 'integer' } } },
      want: { schema: { type: 'object', properties: { N: { type: 'integer' } } } },
    },
    {
      name: 'schema and values keep both',
      params: { schema: { type: 'object' }, values: { N: 1 } },
      want: { schema: { type: 'object' }, values: { N: 1 } },
    },
    {
      name: 'a boolean schema with values is the empty schema or the one nothing passes',
      params: { schema: false, values: [] },
      want: { schema: { not: {} }, values: [] },
    },
    {
      name: 'a mapping with a parameter called schema stays two parameters, as in Dagu',
      params: { schema: 'prod', other: 1 },
      want: [{ other: 1 }, { schema: 'prod' }],
    },
    {
      name: 'a plain mapping of names to values is left alone',
      params: { A: 1 },
      want: { A: 1 },
    },
  ])('$name', ({ params, want }) => {
    expect(rewrite(params)).toEqual({ want, errors: [] });
  });

  it.each([
    {
      name: 'a schema file',
      params: { schema: './params.schema.json' },
      error:
        'params.schema: cannot read the schema "./params.schema.json": a DAG is one Kubernetes resource, and the operator reads no files or URLs for it; write the schema inline',
    },
    {
      name: 'a schema URL with values',
      params: { schema: 'https://example.com/p.json', values: {} },
      error:
        'params.schema: cannot read the schema "https://example.com/p.json": a DAG is one Kubernetes resource, and the operator reads no files or URLs for it; write the schema inline',
    },
    {
      name: 'a $ref to another document inside an inline schema',
      params: { type: 'object', properties: { N: { $ref: 'common.json#/n' } } },
      error:
        'params.properties.N["$ref"]: cannot refer to "common.json#/n": a DAG is one Kubernetes resource, and the operator reads no files or URLs for it; write the schema inline (under $defs)',
    },
    {
      name: 'properties that are not a mapping',
      params: { type: 'object', properties: ['N'] },
      error: 'params.properties: inline JSON Schema properties must be an object keyed by parameter name',
    },
  ])('refuses $name', ({ params, error }) => {
    expect(rewrite(params).errors).toEqual([error]);
  });

  it("fills the schema's defaults when the DAG is loaded", () => {
    const params = load(
      'timeout_sec: 1\nparams:\n  type: object\n  properties:\n    N: {type: integer, default: 5}\n    M: {type: string}\nsteps:\n  - run: echo',
    ).dag.params;
    expect(params.entries).toEqual([{ name: 'N', value: '5', positional: false }]);
  });

  it('refuses a default the schema does not accept, at load', () => {
    expect(
      errorsOf(
        'timeout_sec: 1\nparams:\n  type: object\n  properties:\n    N: {type: integer, maximum: 3, default: 9}\nsteps:\n  - run: echo',
      ),
    ).toHaveLength(1);
  });
});
