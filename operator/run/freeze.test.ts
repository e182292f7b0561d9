import { describe, expect, it } from 'vitest';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { dag as aDag } from '../../test/builders/dag.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { freezePatch } from './freeze.ts';

const dag: DagResource = aDag('etl-nightly', 'etl.nightly').spec({ steps: ['echo'] }).build();
const run = (spec: DagRunResource['spec']): DagRunResource => dagRun('r1').spec(spec).build();

describe('freezePatch', () => {
  it.each([
    ['a kubectl run of a DAG gains its snapshot, the DAG file name and a new id', run({ dagRef: { name: 'etl-nightly' } }), dag, { snapshot: { steps: ['echo'] }, dagName: 'etl.nightly', dagRunId: 'new-id' }],
    ['a YAML name wins over the file name', run({ dagRef: { name: 'etl-nightly' } }), { ...dag, spec: { name: 'etl', steps: ['echo'] } }, { snapshot: { name: 'etl', steps: ['echo'] }, dagName: 'etl', dagRunId: 'new-id' }],
    ['an inline definition is its own snapshot, named after the run without a name', run({ definition: { steps: ['true'] } }), undefined, { snapshot: { steps: ['true'] }, dagName: 'r1', dagRunId: 'new-id' }],
    ['a run the API server created complete gains nothing', run({ dagRef: { name: 'etl-nightly' }, snapshot: { steps: ['echo'] }, dagName: 'etl', dagRunId: 'given' }), dag, {}],
  ] as const)('%s', (_what, given, source, want) => {
    expect(freezePatch(given, source, () => 'new-id')).toEqual(want);
  });
});
