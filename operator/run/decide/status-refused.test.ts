import { describe, expect, it } from 'vitest';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import { endedStatuses, endToRecord, MESSAGE_MAX, refusalError, type RefusedWrite } from './status-refused.ts';

const NOW = new Date('2026-01-01T00:10:00Z');
const TOO_LARGE: RefusedWrite = {
  limit: 'the size limit of an object',
  message: 'etcdserver: request is too large',
  stopping: false,
};
/** The status the API refused: big step detail, handlers, prepared values, a queue and a retry. */
const REFUSED: DagRunStatus = {
  status: 1,
  statusLabel: 'running',
  queuedAt: '2026-01-01T00:00:00Z',
  startedAt: '2026-01-01T00:01:00Z',
  params: '{"n":"1"}',
  progress: '1/3',
  retryToken: 't1',
  heldSteps: 2,
  prepared: { env: ['A=1'], params: [] },
  nodes: [
    {
      name: 'a',
      status: 4,
      statusLabel: 'succeeded',
      attempt: 0,
      exitCode: 0,
      outputs: { OUT: 'x'.repeat(1000) },
      attempts: [{ attempt: 0, startedAt: '2026-01-01T00:01:00Z', status: 4 }],
    },
    { name: 'b', status: 1, statusLabel: 'running', attempt: 0, pod: 'r-b-0', startedAt: '2026-01-01T00:02:00Z' },
    { name: 'c', status: 0, statusLabel: 'not_started' },
  ],
  onExit: { name: 'onExit', status: 0, statusLabel: 'not_started' },
};

describe('the statuses that end a run whose status the API refused', () => {
  const [steps, progress] = endedStatuses(REFUSED, TOO_LARGE, NOW);
  const common = {
    status: 2,
    statusLabel: 'failed',
    queuedAt: '2026-01-01T00:00:00Z',
    startedAt: '2026-01-01T00:01:00Z',
    finishedAt: NOW.toISOString(),
    progress: '1/3',
    retryToken: 't1',
    endReason: 'refused',
  };

  it('first keeps each step name and status, a running step canceled, and drops every detail', () => {
    expect(steps).toEqual({
      ...common,
      params: '{"n":"1"}',
      nodes: [
        { name: 'a', status: 4, statusLabel: 'succeeded' },
        { name: 'b', status: 3, statusLabel: 'canceled' },
        { name: 'c', status: 0, statusLabel: 'not_started' },
      ],
      error:
        "the Kubernetes API refused the run's status (the size limit of an object), so the run was ended and its steps stopped: etcdserver: request is too large (step details were left out to fit)",
    });
  });

  it('then keeps only the run and its progress', () => {
    expect(progress).toEqual({
      ...common,
      error:
        "the Kubernetes API refused the run's status (the size limit of an object), so the run was ended and its steps stopped: etcdserver: request is too large (only the progress was kept; step statuses were left out to fit)",
    });
  });

  it('ends a run being stopped canceled, as a stop does', () => {
    const stopped = endedStatuses(REFUSED, { ...TOO_LARGE, stopping: true }, NOW)[1];
    expect([stopped?.statusLabel, stopped?.endReason, stopped?.error]).toEqual([
      'canceled',
      'stopped',
      "stopped; the run's full status could not be written (the size limit of an object): etcdserver: request is too large (only the progress was kept; step statuses were left out to fit)",
    ]);
  });

  it('gives a run refused before it ever started a start time', () => {
    expect(endedStatuses({}, TOO_LARGE, NOW)[1]).toMatchObject({
      startedAt: NOW.toISOString(),
      finishedAt: NOW.toISOString(),
      statusLabel: 'failed',
    });
  });

  it('trims a long API message so that the error cannot make the status large again', () => {
    const error = refusalError({ ...TOO_LARGE, message: 'm'.repeat(10 * MESSAGE_MAX) });
    expect(error.length).toBeLessThan(MESSAGE_MAX + 200);
    expect(error.endsWith('...')).toBe(true);
  });

  it('records the end for the annotation with the retry it belongs to', () => {
    expect(endToRecord(REFUSED, TOO_LARGE, NOW)).toEqual({
      status: 2,
      finishedAt: NOW.toISOString(),
      endReason: 'refused',
      token: 't1',
      error:
        "the Kubernetes API refused the run's status (the size limit of an object), so the run was ended and its steps stopped: etcdserver: request is too large (no status could be written: this end is recorded in the kubedag.io/ended annotation)",
    });
  });
});
