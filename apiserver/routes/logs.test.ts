import { describe, expect, it } from 'vitest';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun as aDagRun } from '../../test/builders/dag-run.ts';
import { runLogText } from './logs.ts';

function dagRun(status: DagRunStatus | undefined, spec: Partial<DagRunResource['spec']> = {}): DagRunResource {
  const builder = aDagRun('etl-r1').of('etl', 'r1').spec(spec);
  return (status === undefined ? builder : builder.status(status)).build();
}

const node = (name: string, statusLabel: string, extra: Partial<RunNode> = {}): RunNode => ({
  name,
  status: 0,
  statusLabel,
  ...extra,
});

const lines = (text: string): string[] => text.split('\n').filter((line) => line !== '');

describe('runLogText', () => {
  it('tells what happened in time order, with exit codes, errors and handler nodes', () => {
    const run = dagRun({
      status: 2,
      statusLabel: 'failed',
      queuedAt: '2026-03-01T09:59:50Z',
      startedAt: '2026-03-01T10:00:00Z',
      finishedAt: '2026-03-01T10:00:13Z',
      params: '{"A":"1"}',
      error: 'step load failed',
      // Listed out of time order: the log sorts by time, not by position.
      nodes: [
        node('load', 'failed', {
          status: 2,
          attempt: 1,
          startedAt: '2026-03-01T10:00:05Z',
          finishedAt: '2026-03-01T10:00:10Z',
          exitCode: 1,
          error: 'exit status 1',
        }),
        node('extract', 'succeeded', {
          status: 4,
          startedAt: '2026-03-01T10:00:01Z',
          finishedAt: '2026-03-01T10:00:04Z',
          exitCode: 0,
        }),
        node('report', 'not_started'),
      ],
      onFailure: node('onFailure', 'succeeded', {
        status: 4,
        startedAt: '2026-03-01T10:00:11Z',
        finishedAt: '2026-03-01T10:00:12Z',
      }),
    });
    expect(runLogText(run)).toBe(
      [
        '2026-03-01T09:59:50Z run r1 of etl queued',
        '2026-03-01T10:00:00Z run r1 of etl started with params {"A":"1"}',
        '2026-03-01T10:00:01Z step extract started (attempt 0)',
        '2026-03-01T10:00:04Z step extract succeeded (exit code 0)',
        '2026-03-01T10:00:05Z step load started (attempt 1)',
        '2026-03-01T10:00:10Z step load failed (exit code 1): exit status 1',
        '2026-03-01T10:00:11Z step onFailure started (attempt 0)',
        '2026-03-01T10:00:12Z step onFailure succeeded',
        '2026-03-01T10:00:13Z run r1 failed: step load failed',
        '',
      ].join('\n'),
    );
  });

  it.each<[string, DagRunStatus | undefined]>([
    ['a run without status', undefined],
    ['a run whose status has no times', { status: 0, nodes: [node('extract', 'not_started')] }],
  ])('is empty for %s', (_, status) => {
    expect(runLogText(dagRun(status))).toBe('');
  });

  it('tells only what has happened so far of a running run', () => {
    const run = dagRun({
      status: 1,
      startedAt: '2026-03-01T10:00:00Z',
      nodes: [
        node('extract', 'running', { status: 1, startedAt: '2026-03-01T10:00:01Z' }),
        node('load', 'not_started'),
      ],
    });
    expect(lines(runLogText(run))).toEqual([
      '2026-03-01T10:00:00Z run r1 of etl started',
      '2026-03-01T10:00:01Z step extract started (attempt 0)',
    ]);
  });

  it('includes every handler that ran', () => {
    const handlers = {
      onSuccess: node('onSuccess', 'succeeded', { finishedAt: '2026-03-01T10:00:01Z' }),
      onCancel: node('onCancel', 'succeeded', { finishedAt: '2026-03-01T10:00:02Z' }),
      onExit: node('onExit', 'failed', { finishedAt: '2026-03-01T10:00:03Z', exitCode: 2 }),
    };
    expect(lines(runLogText(dagRun({ status: 4, ...handlers })))).toEqual([
      '2026-03-01T10:00:01Z step onSuccess succeeded',
      '2026-03-01T10:00:02Z step onCancel succeeded',
      '2026-03-01T10:00:03Z step onExit failed (exit code 2)',
    ]);
  });

  it('orders times of different precision by the instant they stand for', () => {
    const run = dagRun({ status: 1, startedAt: '2026-03-01T10:00:00.900Z', queuedAt: '2026-03-01T10:00:00.1Z' });
    expect(lines(runLogText(run))).toEqual([
      '2026-03-01T10:00:00.1Z run r1 of etl queued',
      '2026-03-01T10:00:00.900Z run r1 of etl started',
    ]);
  });

  it('leaves out empty params and errors', () => {
    const run = dagRun({
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-03-01T10:00:00Z',
      finishedAt: '2026-03-01T10:00:01Z',
      params: '',
      error: '',
      nodes: [node('a', 'succeeded', { finishedAt: '2026-03-01T10:00:00Z', error: '' })],
    });
    expect(lines(runLogText(run))).toEqual([
      '2026-03-01T10:00:00Z run r1 of etl started',
      '2026-03-01T10:00:00Z step a succeeded',
      '2026-03-01T10:00:01Z run r1 succeeded',
    ]);
  });

  it('names the run by the identity it is listed under', () => {
    const run = aDagRun('etl-r1')
      .of('etl', 'r1')
      .renamedTo('warehouse')
      .status({ status: 5, queuedAt: '2026-03-01T10:00:00Z' })
      .build();
    expect(runLogText(run)).toBe('2026-03-01T10:00:00Z run r1 of warehouse queued\n');
  });
});
