import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunStatus, RunNode } from '../../core/resources/schemas.ts';
import { retryStatus } from './retry.ts';

const dag = loadDag('type: graph\nsteps:\n  - {name: a, command: x}\n  - {name: b, command: x, depends: a}\n  - {name: c, command: x, depends: b}\n  - {name: d, command: x, depends: a}', { fileName: 'r' }).dag;
const node = (name: string, status: number, extra: Partial<RunNode> = {}): RunNode => ({ name, status, statusLabel: '', attempt: 0, retryCount: 0, doneCount: 0, ...extra });
const finished: DagRunStatus = {
  status: 2,
  statusLabel: 'failed',
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:01:00Z',
  error: 'exit code 1',
  endReason: undefined,
  nodes: [node('a', 4, { outputs: { A: '1' } }), node('b', 2, { attempt: 2 }), node('c', 3), node('d', 4)],
  onFailure: node('onFailure', 4),
};
const states = (status: DagRunStatus): Record<string, [string, number | undefined]> => Object.fromEntries((status.nodes ?? []).map((n) => [n.name, [n.statusLabel, n.attempt]]));

describe('retryStatus', () => {
  it('resets failed and canceled steps and their dependents, keeping the rest and its outputs', () => {
    const status = retryStatus(dag, finished, new Date('2026-01-02T00:00:00Z'));
    expect(states(status)).toEqual({ a: ['', 0], b: ['not_started', 3], c: ['not_started', 1], d: ['', 0] });
    expect(status.nodes?.[0]?.outputs).toEqual({ A: '1' });
    expect(status).toMatchObject({ status: 1, statusLabel: 'running', startedAt: '2026-01-02T00:00:00.000Z' });
    expect(status.finishedAt).toBeUndefined();
    expect(status.onFailure).toBeUndefined();
    expect(status.error).toBeUndefined();
  });

  it('resets only the named step', () => {
    const status = retryStatus(dag, finished, new Date(), 'd');
    expect(states(status)).toEqual({ a: ['', 0], b: ['', 2], c: ['', 0], d: ['not_started', 1] });
  });
});
