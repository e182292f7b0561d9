import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from './constants.ts';
import { recordedEndValue, withRecordedEnd, type RecordedEnd } from './ended.ts';
import type { DagRunStatus } from './schemas.ts';
import type { DagRunResource } from './types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';

const END: RecordedEnd = {
  status: 3,
  finishedAt: '2026-01-01T00:10:00Z',
  error: 'stopped; no status could be written',
  endReason: 'stopped',
  token: '',
};
const RUNNING: DagRunStatus = {
  status: 1,
  statusLabel: 'running',
  startedAt: '2026-01-01T00:00:00Z',
  heldSteps: 1,
  nodes: [
    { name: 'a', status: 1, statusLabel: 'running' },
    { name: 'b', status: 4, statusLabel: 'succeeded' },
  ],
};

function run(status: DagRunStatus | undefined, annotation: string | undefined): DagRunResource {
  const built = dagRun('r').namespace('n');
  if (annotation !== undefined) built.annotate({ [ANNOTATIONS.ended]: annotation });
  if (status !== undefined) built.status(status);
  return built.build();
}

describe('a run seen through its recorded end', () => {
  it('shows the recorded end as its status, its running steps canceled', () => {
    const seen = withRecordedEnd(run(RUNNING, recordedEndValue(END)));
    expect(seen.status).toEqual({
      status: 3,
      statusLabel: 'canceled',
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: END.finishedAt,
      error: END.error,
      endReason: 'stopped',
      nodes: [
        { name: 'a', status: 3, statusLabel: 'canceled' },
        { name: 'b', status: 4, statusLabel: 'succeeded' },
      ],
    });
  });

  const unchanged: { name: string; status: DagRunStatus | undefined; annotation: string | undefined }[] = [
    { name: 'a run without the annotation is as it is', status: RUNNING, annotation: undefined },
    {
      name: 'a status that did finish wins over the annotation',
      status: { ...RUNNING, status: 4, statusLabel: 'succeeded', finishedAt: '2026-01-01T00:09:00Z' },
      annotation: recordedEndValue(END),
    },
    {
      name: 'a later retry that wrote its status is not ended by an earlier end',
      status: { ...RUNNING, retryToken: 'again' },
      annotation: recordedEndValue(END),
    },
    { name: 'an annotation that is not an end is ignored', status: RUNNING, annotation: 'not json' },
  ];
  it.each(unchanged)('$name', ({ status, annotation }) => {
    const original = run(status, annotation);
    expect(withRecordedEnd(original)).toBe(original);
  });

  it('does not change the object it is given', () => {
    const original = run(RUNNING, recordedEndValue(END));
    const copy = structuredClone(original);
    withRecordedEnd(original);
    expect(original).toEqual(copy);
  });
});
