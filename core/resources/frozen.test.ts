import { describe, expect, it } from 'vitest';
import { loadDagSpec } from './dag.ts';
import {
  asksAfterEnd,
  declaredValue,
  definitionFacts,
  definitionPlace,
  definitionSegment,
  frozenFacts,
  frozenReference,
  isFrozen,
  ownedBy,
} from './frozen.ts';
import { definitionSegmentName } from './names.ts';
import type { DagRunResource } from './types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';

const run = (spec: DagRunResource['spec']): DagRunResource =>
  dagRun('etl-r1').namespace('ns').uid('u1').spec(spec).build();
const reference = {
  segment: 'etl-r1-definition-x',
  queue: 'shared',
  maxActiveRuns: 3,
  histRetentionDays: 7,
  afterEnd: false,
};
const dagOf = (spec: Record<string, unknown>): ReturnType<typeof loadDagSpec>['dag'] =>
  loadDagSpec(spec, { fileName: 'etl' }).dag;

describe('definitionPlace', () => {
  it.each([
    [
      'a run frozen the old way has its definition in spec.snapshot',
      run({ dagRef: { name: 'etl' }, snapshot: { steps: ['old'] } }),
      { in: 'spec', definition: { steps: ['old'] } },
    ],
    [
      'a dagRef run frozen now has it in the segment its reference names',
      run({ dagRef: { name: 'etl' }, frozenDefinition: reference }),
      { in: 'segment', segment: 'etl-r1-definition-x' },
    ],
    [
      'an inline run has it in its own definition',
      run({ definition: { steps: ['inline'] } }),
      { in: 'spec', definition: { steps: ['inline'] } },
    ],
    [
      'an inline run made before frozenDefinition reads its snapshot (the same text)',
      run({ definition: { steps: ['inline'] }, snapshot: { steps: ['inline'] } }),
      { in: 'spec', definition: { steps: ['inline'] } },
    ],
    ['a dagRef run nobody froze has it nowhere yet', run({ dagRef: { name: 'etl' } }), { in: 'nowhere' }],
  ] as const)('%s', (_what, given, want) => {
    expect(definitionPlace(given)).toEqual(want);
    expect(isFrozen(given)).toBe(want.in !== 'nowhere');
  });
});

describe('values read without loading a definition', () => {
  it.each([
    [
      'the queue of a run frozen into a segment comes from its reference',
      run({ dagRef: { name: 'etl' }, frozenDefinition: reference }),
      'queue',
      'shared',
    ],
    ['its maxActiveRuns too', run({ dagRef: { name: 'etl' }, frozenDefinition: reference }), 'maxActiveRuns', 3],
    [
      'an old run reads its snapshot as written',
      run({ dagRef: { name: 'etl' }, snapshot: { queue: 'old-q', steps: ['x'] } }),
      'queue',
      'old-q',
    ],
    [
      'an inline run reads its definition as written',
      run({ definition: { maxActiveRuns: 2, steps: ['x'] } }),
      'maxActiveRuns',
      2,
    ],
    ['a run nobody froze declares nothing', run({ dagRef: { name: 'etl' } }), 'queue', undefined],
  ] as const)('%s', (_what, given, key, want) => {
    expect(declaredValue(given, key)).toEqual(want);
  });

  it('gives the facts of a reference, and none for a definition kept in the spec (loading it tells them)', () => {
    expect(frozenFacts(run({ dagRef: { name: 'etl' }, frozenDefinition: reference }))).toEqual(reference);
    expect(frozenFacts(run({ dagRef: { name: 'etl' }, snapshot: { steps: ['x'] } }))).toBeUndefined();
    expect(frozenFacts(run({ definition: { steps: ['x'] } }))).toBeUndefined();
  });
});

describe('definitionFacts', () => {
  it('takes the queue, the limits with their defaults, and whether anything is owed after the end', () => {
    expect(definitionFacts(dagOf({ steps: ['echo'] }))).toEqual({
      maxActiveRuns: 1,
      histRetentionDays: 30,
      afterEnd: false,
    });
    expect(definitionFacts(dagOf({ queue: 'q', maxActiveRuns: -1, histRetentionDays: 2, steps: ['echo'] }))).toEqual({
      queue: 'q',
      maxActiveRuns: -1,
      histRetentionDays: 2,
      afterEnd: false,
    });
  });

  it.each([
    ['plain steps owe nothing after the end', { steps: ['echo'] }, false],
    [
      'a trace export is owed with otel on',
      { otel: { enabled: true, endpoint: 'http://collector:4318' }, steps: ['echo'] },
      true,
    ],
    [
      'a mail after a failure',
      {
        mailOn: { failure: true },
        errorMail: { from: 'a@b.c', to: 'd@e.f' },
        smtp: { host: 'smtp', port: '25' },
        steps: ['echo'],
      },
      true,
    ],
    [
      'a mail after a success',
      {
        mailOn: { success: true },
        infoMail: { from: 'a@b.c', to: 'd@e.f' },
        smtp: { host: 'smtp', port: '25' },
        steps: ['echo'],
      },
      true,
    ],
    [
      "a step's mailOnError",
      {
        errorMail: { from: 'a@b.c', to: 'd@e.f' },
        smtp: { host: 'smtp', port: '25' },
        steps: [{ name: 's', command: 'echo', mailOnError: true }],
      },
      true,
    ],
    ['a container to remove', { container: { image: 'alpine' }, steps: ['echo'] }, true],
    [
      "a wait mail to record (Dagu 2.x's mail_on.wait)",
      {
        mail_on: { wait: true },
        wait_mail: { from: 'a@b.c', to: 'd@e.f' },
        smtp: { host: 'smtp', port: '25' },
        steps: [{ name: 's', run: 'echo', approval: {} }],
      },
      true,
    ],
  ] as const)('%s', (_what, spec, want) => {
    expect(asksAfterEnd(dagOf(spec))).toBe(want);
  });

  it("names the run's own segment in the reference", () => {
    expect(frozenReference('etl-r1', dagOf({ steps: ['echo'] })).segment).toBe(definitionSegmentName('etl-r1'));
  });
});

describe('definitionSegment', () => {
  const owner = { name: 'etl-r1', namespace: 'ns', uid: 'u1' };
  const segment = definitionSegment(owner, { steps: ['echo'] });

  it('holds the definition, is owned by the run and found by its label', () => {
    expect(segment).toMatchObject({
      metadata: {
        name: definitionSegmentName('etl-r1'),
        namespace: 'ns',
        labels: { 'kubedag.io/run': 'etl-r1' },
        ownerReferences: [{ kind: 'DAGRun', name: 'etl-r1', uid: 'u1', controller: true }],
      },
      spec: { run: 'etl-r1', definition: { steps: ['echo'] } },
    });
  });

  it("is the run's own only for its uid: a deleted namesake's is not", () => {
    expect([ownedBy(segment, 'u1'), ownedBy(segment, 'u2'), ownedBy(segment, '')]).toEqual([true, false, false]);
  });
});
