import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../core/kube/time.ts';
import { Ledger, readLedger } from './ledger.ts';

describe('the execution ledger', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubedag-ledger-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('records each event with the clock time and the node, and reads them back in order', () => {
    let now = new Date('2026-01-01T00:00:00Z');
    const clock: Clock = { now: () => now };
    const path = join(dir, 'nodes/n1/ledger.jsonl');
    const ledger = new Ledger(path, 'n1', clock);
    ledger.record({
      event: 'start',
      podUid: 'u1',
      namespace: 'ns',
      pod: 'p',
      container: 'main',
      restartCount: 0,
      pid: 42,
    });
    now = new Date('2026-01-01T00:00:03Z');
    ledger.record({
      event: 'exit',
      podUid: 'u1',
      namespace: 'ns',
      pod: 'p',
      container: 'main',
      restartCount: 0,
      pid: 42,
      exitCode: 0,
    });
    expect(readLedger(path).map((e) => [e.time, e.node, e.event])).toEqual([
      ['2026-01-01T00:00:00.000Z', 'n1', 'start'],
      ['2026-01-01T00:00:03.000Z', 'n1', 'exit'],
    ]);
  });

  it('reads a missing ledger as empty', () => {
    expect(readLedger(join(dir, 'none.jsonl'))).toEqual([]);
  });
});
