import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readLedger } from '../../cluster/node-agent/ledger.ts';
import { finishedRun, givenDag, startOperator, stepStates, whenRun, type RunningOperator } from './operator-support.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { core } = clients();
let ns = '';
let operator: RunningOperator | undefined;
const RUNS = 20;
const KILLS = 10;

beforeAll(async () => {
  ns = await createNamespace(core, 'crash');
});

afterAll(async () => {
  await operator?.stop();
  await deleteNamespace(core, ns);
});

describe('an operator killed at random moments', () => {
  it('brings 20 concurrent runs to the right end without starting any step attempt twice', async () => {
    // Short, so each restart waits little for the dead one's Lease; not shorter, or a leader
    // slowed by a busy machine cannot renew within its renew deadline and steps down.
    const fast = ['--lease-duration-seconds=5'];
    operator = await startOperator(ns, undefined, fast);
    const logDir = operator.logDir;
    await givenDag(
      ns,
      'crashy',
      'type: graph\nsteps:\n  - {name: a, command: sleep 0.2}\n  - {name: b, command: sleep 0.3, depends: a}\n  - {name: c, command: sleep 0.2, depends: a}\n  - {name: d, command: "exit 0", depends: [b, c]}',
    );
    for (let i = 0; i < RUNS; i += 1) await whenRun(ns, `crash-${String(i)}`, 'crashy');
    for (let kill = 0; kill < KILLS; kill += 1) {
      await sleep(150 + Math.floor(Math.random() * 900));
      await operator.stop('SIGKILL');
      operator = await startOperator(ns, logDir, fast);
    }
    const runs = await Promise.all(
      Array.from({ length: RUNS }, (_, i) => finishedRun(ns, `crash-${String(i)}`, 120_000)),
    );
    for (const run of runs) {
      expect(run.status?.statusLabel).toBe('succeeded');
      expect(stepStates(run)).toEqual({ a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' });
    }
    const starts = inject('cluster')
      .nodes.flatMap((node) => readLedger(node.ledger))
      .filter((entry) => entry.namespace === ns && entry.event === 'start');
    const perPod = new Map<string, number>();
    for (const entry of starts) perPod.set(entry.pod, (perPod.get(entry.pod) ?? 0) + 1);
    expect([...perPod.values()].filter((n) => n > 1)).toEqual([]);
    expect(perPod.size).toBe(RUNS * 4);
  }, 240_000);
});
