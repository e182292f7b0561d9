import { describe, expect, it } from 'vitest';
import type { DagResource, DagRunResource } from '../../../core/resources/types.ts';
import { dag as aDag } from '../../../test/builders/dag.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import {
  awaitingDefinition,
  DEFINITION_GRACE_MS,
  DEFINITION_POLL_MS,
  freezePatch,
  freezeWrite,
  type Freezing,
} from './freeze-patch.ts';

const dag: DagResource = aDag('etl-nightly', 'etl.nightly')
  .spec({ steps: ['echo'] })
  .build();
const run = (spec: DagRunResource['spec']): DagRunResource => dagRun('r1').spec(spec).build();
const reference = { segment: 'r1-definition-x', maxActiveRuns: 1, histRetentionDays: 30, afterEnd: false };
const freezing = (definition: Record<string, unknown>): Freezing => ({ definition, reference });

describe('freezePatch', () => {
  it.each([
    [
      'a kubectl run of a DAG names its definition segment, and gains the DAG file name and a new id',
      run({ dagRef: { name: 'etl-nightly' } }),
      dag,
      freezing({ steps: ['echo'] }),
      { frozenDefinition: reference, dagName: 'etl.nightly', dagRunId: 'new-id' },
    ],
    [
      'a YAML name in the frozen definition wins over the file name',
      run({ dagRef: { name: 'etl-nightly' } }),
      dag,
      freezing({ name: 'etl', steps: ['echo'] }),
      { frozenDefinition: reference, dagName: 'etl', dagRunId: 'new-id' },
    ],
    [
      'an inline definition is its own frozen definition: no copy, named after the run without a name',
      run({ definition: { steps: ['true'] } }),
      undefined,
      undefined,
      { dagName: 'r1', dagRunId: 'new-id' },
    ],
    [
      'an inline definition with a name is listed under it',
      run({ definition: { name: 'adhoc', steps: ['true'] } }),
      undefined,
      undefined,
      { dagName: 'adhoc', dagRunId: 'new-id' },
    ],
    [
      'a run the API server created complete gains nothing',
      run({ dagRef: { name: 'etl-nightly' }, frozenDefinition: reference, dagName: 'etl', dagRunId: 'given' }),
      dag,
      undefined,
      {},
    ],
    [
      'a run frozen the old way (spec.snapshot) gains nothing',
      run({ dagRef: { name: 'etl-nightly' }, snapshot: { steps: ['echo'] }, dagName: 'etl', dagRunId: 'given' }),
      dag,
      undefined,
      {},
    ],
    [
      'a run frozen the old way without a name is listed under its snapshot name',
      run({ dagRef: { name: 'etl-nightly' }, snapshot: { name: 'old', steps: ['echo'] } }),
      dag,
      undefined,
      { dagName: 'old', dagRunId: 'new-id' },
    ],
  ] as const)('%s', (_what, given, source, frozen, want) => {
    expect(freezePatch(given, source, frozen, () => 'new-id')).toEqual(want);
  });
});

describe('awaitingDefinition', () => {
  const created = new Date('2026-11-28T10:00:00Z');
  const waiting = dagRun('r1')
    .created(created)
    .spec({ dagRef: { name: 'etl' }, frozenDefinition: reference })
    .build();
  const at = (ms: number): Date => new Date(created.getTime() + ms);

  it.each([
    ['a run just created waits a moment for its creator to write the segment', 0, { waitMs: DEFINITION_POLL_MS }],
    ['a run close to the end of its grace waits only what is left', DEFINITION_GRACE_MS - 50, { waitMs: 50 }],
  ] as const)('%s', (_what, elapsed, want) => {
    expect(awaitingDefinition(waiting, at(elapsed))).toEqual(want);
  });

  it('fails a run whose segment never came: its creator died between its two writes', () => {
    const awaiting = awaitingDefinition(waiting, at(DEFINITION_GRACE_MS));
    expect('error' in awaiting ? awaiting.error : '').toContain('DAGRunSegment r1-definition-x) was never written');
  });
});

describe('freezeWrite', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const newId = (): string => 'new-id';

  it('a run whose definition cannot be frozen fails at once, rejected, saying why', () => {
    expect(freezeWrite(run({ dagRef: { name: 'gone' } }), undefined, 'DAG "gone" not found', now, newId)).toEqual({
      kind: 'fail',
      status: {
        status: 2,
        statusLabel: 'failed',
        error: 'DAG "gone" not found',
        endReason: 'rejected',
        startedAt: '2026-01-01T00:00:00.000Z',
        finishedAt: '2026-01-01T00:00:00.000Z',
      },
    });
  });

  it('a run frozen before writes nothing', () => {
    expect(
      freezeWrite(
        run({ definition: { steps: ['echo'] }, dagName: 'd', dagRunId: 'id' }),
        undefined,
        undefined,
        now,
        newId,
      ),
    ).toEqual({
      kind: 'none',
    });
  });

  it('a run frozen now has its spec patched', () => {
    expect(
      freezeWrite(run({ dagRef: { name: 'etl-nightly' } }), dag, freezing({ steps: ['echo'] }), now, newId),
    ).toEqual({
      kind: 'patch',
      patch: { frozenDefinition: reference, dagName: 'etl.nightly', dagRunId: 'new-id' },
    });
  });
});
