import { describe, expect, it } from 'vitest';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { freezePatch } from './freeze.ts';

const dag: DagResource = { metadata: { name: 'etl-nightly', annotations: { 'kubedag.io/file-name': 'etl.nightly' } }, spec: { steps: ['echo'] } };
const run = (spec: DagRunResource['spec']): DagRunResource => ({ metadata: { name: 'r1' }, spec });

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
