import { describe, expect, it } from 'vitest';
import {
  compactNodes,
  expandNodes,
  isPristine,
  NOTHING_SEALED,
  SEAL_BYTES,
  SEAL_RECORDS,
  sealedRecords,
  type SealedRecords,
} from './run-records.ts';
import type { RunNode } from './schemas.ts';
import { StepStatus, stepStatusLabel } from './status.ts';

const node = (name: string, status: number, more: Partial<RunNode> = {}): RunNode => ({
  name,
  status,
  statusLabel: stepStatusLabel(status),
  retryCount: 0,
  doneCount: 0,
  attempt: 0,
  ...more,
});
const done = (name: string, more: Partial<RunNode> = {}): RunNode =>
  node(name, StepStatus.Succeeded, {
    startedAt: '2026-11-28T10:00:00Z',
    finishedAt: '2026-11-28T10:00:01Z',
    exitCode: 0,
    ...more,
  });
const names = (nodes: readonly RunNode[]): string[] => nodes.map((n) => n.name);
const sealedOf = (...segments: RunNode[][]): SealedRecords =>
  sealedRecords(segments.map((nodes, index) => ({ index, nodes })));

describe('compactNodes', () => {
  it('drops pristine steps and keeps running and finished ones while the tail is short', () => {
    const full = [done('a'), node('b', StepStatus.Running, { startedAt: 't' }), node('c', StepStatus.NotStarted)];
    expect(compactNodes(full, NOTHING_SEALED)).toEqual({ nodes: [full[0], full[1]], seal: [] });
  });

  it('keeps a not-started step that carries something (a retry waiting)', () => {
    const waiting = node('a', StepStatus.NotStarted, { retryCount: 1, nextAttemptAt: 't' });
    expect(isPristine(waiting)).toBe(false);
    expect(compactNodes([waiting], NOTHING_SEALED).nodes).toEqual([waiting]);
  });

  it(`seals the whole finished tail once it holds ${String(SEAL_RECORDS)} records, leaving running steps in the status`, () => {
    const finished = Array.from({ length: SEAL_RECORDS }, (_, i) => done(`s${String(i)}`));
    const running = node('r', StepStatus.Running);
    const result = compactNodes([...finished, running], NOTHING_SEALED);
    expect(result.nodes).toEqual([running]);
    expect(result.seal).toEqual([finished]);
    expect(compactNodes([...finished.slice(1), running], NOTHING_SEALED).seal).toEqual([]);
  });

  it('seals sooner when the finished records are large, in batches that each fit a segment', () => {
    const big = 'x'.repeat(16 * 1024);
    const finished = Array.from({ length: 40 }, (_, i) => done(`s${String(i)}`, { outputs: { OUT: big } }));
    const result = compactNodes(finished.slice(0, 4), NOTHING_SEALED);
    expect(result.seal).toHaveLength(1);
    expect(JSON.stringify(finished.slice(0, 4)).length).toBeGreaterThanOrEqual(SEAL_BYTES);
    const many = compactNodes(finished, NOTHING_SEALED).seal;
    expect(many.length).toBeGreaterThan(1);
    expect(many.flat()).toEqual(finished);
  });

  it('drops records equal to their sealed ones, whatever their key order', () => {
    const a = done('a');
    const reordered = Object.fromEntries(Object.entries(a).reverse()) as RunNode;
    const result = compactNodes([reordered, node('b', StepStatus.Running)], sealedOf([a]));
    expect(names(result.nodes)).toEqual(['b']);
  });

  it('keeps a record that changed after it was sealed, even a reset to not started', () => {
    const reset = node('a', StepStatus.NotStarted);
    expect(compactNodes([reset], sealedOf([done('a')])).nodes).toEqual([reset]);
    const failedAgain = done('a', { status: StepStatus.Failed, statusLabel: 'failed', exitCode: 1 });
    expect(compactNodes([failedAgain], sealedOf([done('a')])).nodes).toEqual([failedAgain]);
  });
});

describe('expandNodes', () => {
  it('takes the status record over a sealed one, and a later segment over an earlier one', () => {
    const sealed = sealedOf([done('a'), done('b')], [done('b', { exitCode: 7 })]);
    expect(sealed.count).toBe(2);
    const expanded = expandNodes([node('a', StepStatus.Running)], sealed);
    expect(expanded.find((n) => n.name === 'a')?.status).toBe(StepStatus.Running);
    expect(expanded.find((n) => n.name === 'b')?.exitCode).toBe(7);
  });

  it('orders by the definition when given, with unknown names after', () => {
    const sealed = sealedOf([done('c'), done('a')]);
    expect(names(expandNodes([done('zz'), done('b')], sealed, ['a', 'b', 'c', 'd']))).toEqual(['a', 'b', 'c', 'zz']);
  });

  it('round-trips through compaction: what the status keeps plus what is sealed is the whole run', () => {
    const full = [
      ...Array.from({ length: 50 }, (_, i) => done(`s${String(i)}`)),
      node('r', StepStatus.Running),
      node('n', StepStatus.NotStarted),
    ];
    let sealed: SealedRecords = NOTHING_SEALED;
    const segments: RunNode[][] = [];
    for (let upTo = 1; upTo <= full.length; upTo += 7) {
      segments.push(...compactNodes(full.slice(0, upTo), sealed).seal);
      sealed = sealedOf(...segments);
    }
    const final = compactNodes(full, sealed);
    segments.push(...final.seal);
    const stored = final.nodes;
    expect(stored.length).toBeLessThan(SEAL_RECORDS + 1);
    expect(expandNodes(stored, sealedOf(...segments), names(full))).toEqual(full.filter((n) => !isPristine(n)));
  });
});
