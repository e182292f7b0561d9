import { describe, expect, it } from 'vitest';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { withConditions } from './conditions.ts';

const now = new Date('2026-11-22T10:00:00Z');
const earlier = '2026-11-22T09:00:00.000Z';
const states = (status: DagRunStatus): Record<string, string> =>
  Object.fromEntries((status.conditions ?? []).map((c) => [c.type, `${c.status}/${c.reason}`]));

describe('run conditions', () => {
  const cases: { name: string; status: DagRunStatus; want: Record<string, string> }[] = [
    {
      name: 'a running run is Running and not yet Succeeded',
      status: { status: 1, progress: '1/3' },
      want: { Running: 'True/Running', Succeeded: 'Unknown/Running' },
    },
    {
      name: 'a succeeded run is Succeeded and no longer Running',
      status: { status: 4, finishedAt: earlier },
      want: { Running: 'False/Succeeded', Succeeded: 'True/Succeeded' },
    },
    {
      name: 'a partially succeeded run counts as Succeeded',
      status: { status: 6, finishedAt: earlier },
      want: { Running: 'False/PartiallySucceeded', Succeeded: 'True/PartiallySucceeded' },
    },
    {
      name: 'a failed run is not Succeeded',
      status: { status: 2, finishedAt: earlier, error: 'step b failed' },
      want: { Running: 'False/Failed', Succeeded: 'False/Failed' },
    },
    {
      name: 'a canceled run is not Succeeded',
      status: { status: 3, finishedAt: earlier },
      want: { Running: 'False/Canceled', Succeeded: 'False/Canceled' },
    },
    {
      name: 'a queued run is neither running nor ended',
      status: { status: 5 },
      want: { Running: 'False/Queued', Succeeded: 'Unknown/Queued' },
    },
  ];
  it.each(cases)('$name', ({ status, want }) => {
    expect(states(withConditions(status, 2, now))).toEqual(want);
  });

  it('records the generation it describes on the status and on every condition', () => {
    const out = withConditions({ status: 1 }, 7, now);
    expect([out.observedGeneration, ...(out.conditions ?? []).map((c) => c.observedGeneration)]).toEqual([7, 7, 7]);
  });

  it('keeps lastTransitionTime while a condition holds, and moves it when it flips', () => {
    const first = withConditions({ status: 1 }, 1, new Date(earlier));
    const again = withConditions({ ...first, progress: '2/3' }, 1, now);
    expect(again.conditions?.find((c) => c.type === 'Running')?.lastTransitionTime).toBe(earlier);
    const ended = withConditions({ ...again, status: 4, finishedAt: now.toISOString() }, 1, now);
    expect(ended.conditions?.map((c) => c.lastTransitionTime)).toEqual([now.toISOString(), now.toISOString()]);
  });
});
