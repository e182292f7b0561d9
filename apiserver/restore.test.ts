import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../core/resources/constants.ts';
import { withRecordedEnd } from '../core/resources/ended.ts';
import { definitionSegmentName } from '../core/resources/names.ts';
import { expandNodes, recordBytes, sealedRecords, SEGMENT_BYTES } from '../core/resources/run-records.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { dagRun } from '../test/builders/dag-run.ts';
import { finished, stepRecord } from '../test/builders/history-run.ts';
import { restorePlan } from './restore.ts';

/** An archived dagRef run as the store gives it back: every record in the status, the definition in spec.snapshot. */
function archived(steps: number): DagRunResource {
  const names = Array.from({ length: steps }, (_, i) => `s${String(i)}`);
  return finished('ns', 'etl', 'r1')
    .resource((run) =>
      run
        .annotate({ [ANNOTATIONS.restartAt]: 'x', [ANNOTATIONS.retry]: 't1', keep: 'me' })
        .snapshot({ steps: names.map((name) => ({ name, command: 'true' })) })
        .status({ observedGeneration: 4, sealed: 9, nodes: names.map(stepRecord) }),
    )
    .build().run;
}

describe('putting an archived run back', () => {
  it('seals a 10,000-step run into segments within their size and keeps the DAGRun small, every record kept in order', () => {
    const run = archived(10_000);
    const plan = restorePlan(run, 'ns');
    expect(plan.segments.length).toBeGreaterThan(1);
    for (const segment of plan.segments)
      expect(segment.reduce((sum, node) => sum + recordBytes(node), 0)).toBeLessThanOrEqual(SEGMENT_BYTES);
    expect(JSON.stringify({ ...plan.body, status: plan.status }).length).toBeLessThan(16 * 1024);
    expect(plan.status.sealed).toBe(plan.segments.length);
    const sealed = sealedRecords(plan.segments.map((nodes, index) => ({ index, nodes })));
    expect(expandNodes(plan.status.nodes, sealed)).toEqual(run.status?.nodes);
  });

  it('names its own definition segment instead of carrying the definition, and keeps no bookkeeping of the DAGRun it was (uid, version, generation, a restart, a retry token)', () => {
    const run = archived(3);
    const plan = restorePlan(run, 'other-ns');
    expect(plan.definition).toEqual(run.spec.snapshot);
    expect([plan.body.spec.snapshot, plan.body.spec.frozenDefinition?.segment, plan.body.metadata?.namespace]).toEqual([
      undefined,
      definitionSegmentName(run.metadata?.name ?? ''),
      'other-ns',
    ]);
    expect(plan.body.metadata?.annotations).toEqual({ keep: 'me', [ANNOTATIONS.restoredFrom]: run.metadata?.uid });
    expect([
      plan.body.metadata?.uid,
      plan.body.metadata?.resourceVersion,
      plan.status.observedGeneration,
      plan.status.sealed,
    ]).toEqual([undefined, undefined, undefined, undefined]);
    expect(plan.status.nodes).toEqual(run.status?.nodes);
  });

  it("keeps an inline run's definition in its spec, writes no definition segment, and carries its end so that every cache sees it finished before its status is written", () => {
    const run = archived(2);
    const inline: DagRunResource = { ...run, spec: { ...run.spec, definition: { steps: ['true'] } } };
    delete inline.spec.dagRef;
    delete inline.spec.snapshot;
    const plan = restorePlan(inline, 'ns');
    expect([plan.definition, plan.body.spec.definition, plan.body.spec.frozenDefinition]).toEqual([
      undefined,
      { steps: ['true'] },
      undefined,
    ]);
    const seen = withRecordedEnd(plan.body).status;
    expect([seen?.status, seen?.finishedAt]).toEqual([run.status?.status, run.status?.finishedAt]);
    expect(withRecordedEnd(restorePlan(run, 'ns').body).status).toBeUndefined();
  });

  it('owns a sub run by the live parent it is put back under (the operator finds children by it, and the garbage collector deletes them with it), and a root by nothing', () => {
    const parent = dagRun('etl-r1').namespace('ns').uid('new-uid').build();
    expect(restorePlan(archived(1), 'ns', parent).body.metadata?.ownerReferences).toEqual([
      {
        apiVersion: 'kubedag.io/v1alpha1',
        kind: 'DAGRun',
        name: 'etl-r1',
        uid: 'new-uid',
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(restorePlan(archived(1), 'ns').body.metadata?.ownerReferences).toBeUndefined();
  });

  it('refuses a dagRef run archived without its definition', () => {
    const run = archived(1);
    delete run.spec.snapshot;
    expect(() => restorePlan(run, 'ns')).toThrow(/without its definition/);
  });
});
