import { describe, expect, it } from 'vitest';
import { dagRun } from '../../test/builders/dag-run.ts';
import { stepRecord } from '../../test/builders/history-run.ts';
import { ANNOTATIONS } from '../resources/constants.ts';
import { archiveRecord, historyRunOf, type SummaryRow } from './record.ts';
import type { RunToArchive } from './types.ts';

const base = (): ReturnType<typeof dagRun> =>
  dagRun('etl-r1').namespace('team-a').uid('u1').of('etl', 'r1').created('2026-11-01T00:00:00Z');

describe('archiveRecord', () => {
  it.each<{ name: string; input: RunToArchive; want: Partial<SummaryRow> }>([
    {
      name: 'a root run is its own root and has no parent',
      input: { dagName: 'etl', run: base().status({ status: 4, statusLabel: 'succeeded' }).build() },
      want: {
        namespace: 'team-a',
        dag_name: 'etl',
        run_id: 'r1',
        resource_name: 'etl-r1',
        uid: 'u1',
        root_name: 'etl',
        root_run_id: 'r1',
        parent_name: '',
        parent_run_id: '',
      },
    },
    {
      name: 'a sub run names its parent and its root',
      input: {
        dagName: 'extract',
        run: dagRun('sub').namespace('team-a').of('extract', 's1').child(['load', 'p1'], ['etl', 'r1']).build(),
      },
      want: {
        dag_name: 'extract',
        run_id: 's1',
        parent_name: 'load',
        parent_run_id: 'p1',
        root_name: 'etl',
        root_run_id: 'r1',
      },
    },
    {
      name: 'a run without a status is not started, or queued when it was enqueued',
      input: { dagName: 'etl', run: base().spec({ enqueue: true }).build() },
      want: { status: 5, status_label: 'queued', finished_ms: null, finished_at: '' },
    },
    {
      name: 'a creation time read as a Date is the same instant as its text',
      input: { dagName: 'etl', run: base().created(new Date('2026-11-01T00:00:00Z')).build() },
      want: { created_ms: Date.UTC(2026, 10, 1), created_at: '2026-11-01T00:00:00.000Z' },
    },
    {
      name: 'the effective params are the status’s, else the spec’s',
      input: {
        dagName: 'etl',
        run: base().spec({ params: 'A=1' }).status({ finishedAt: '2026-11-01T00:01:00Z' }).build(),
      },
      want: { params: 'A=1', finished_at: '2026-11-01T00:01:00Z', finished_ms: Date.UTC(2026, 10, 1, 0, 1) },
    },
  ])('$name', ({ input, want }) => {
    expect(archiveRecord(input).row).toMatchObject(want);
  });

  it('puts every record handed over and the frozen definition in the body, without server bookkeeping', () => {
    const run = base()
      .status({ nodes: [stepRecord('b')] })
      .build();
    run.metadata = { ...run.metadata, managedFields: [{ manager: 'kubedag-operator' }] };
    const { body } = archiveRecord({
      dagName: 'etl',
      run,
      nodes: [stepRecord('a'), stepRecord('b')],
      definition: { steps: [{ name: 'a' }, { name: 'b' }] },
    });
    expect(body.status?.nodes?.map((n) => n.name)).toEqual(['a', 'b']);
    expect(body.spec.snapshot).toEqual({ steps: [{ name: 'a' }, { name: 'b' }] });
    expect(body.metadata).not.toHaveProperty('managedFields');
    expect(run.status?.nodes).toHaveLength(1);
  });

  it('refuses a run it could not file', () => {
    expect(() => archiveRecord({ dagName: 'etl', run: dagRun('x').of('etl', 'r1').build() })).toThrow(/namespace/);
  });
});

describe('historyRunOf', () => {
  it('says a run was relisted under another DAG name the way a DAGRun does, and leaves others as archived', () => {
    const record = archiveRecord({ dagName: 'etl', run: base().build() });
    expect(historyRunOf({ ...record.row, dag_name: 'etl-v2' }, record.body).resource.metadata?.annotations).toEqual({
      [ANNOTATIONS.dagName]: 'etl-v2',
    });
    expect(historyRunOf(record.row, record.body).resource).toBe(record.body);
  });
});
