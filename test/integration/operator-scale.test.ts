import { describe, expect, it } from 'vitest';
import { finishedRun, givenDag, whenRun, type RunningOperator, withOperatorNamespace } from './operator-support.ts';

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('scale', (made) => ({ ns, operator } = made));

/** etcd refuses objects over 1.5 MiB; a run's status must stay far below that. */
const ETCD_OBJECT_LIMIT = 1.5 * 1024 * 1024;

describe('a run with 1,000 steps', () => {
  it('finishes with every step succeeded and a status far below the etcd object limit', async () => {
    const steps = Array.from(
      { length: 1000 },
      (_, i) =>
        `  - {name: step-${String(i).padStart(4, '0')}, command: "echo ${String(i)}", output: OUT_${String(i)}}`,
    );
    await givenDag(ns, 'thousand', ['type: graph', 'maxActiveSteps: 40', 'steps:', ...steps].join('\n'));
    await whenRun(ns, 'thousand-run', 'thousand');
    const done = await finishedRun(ns, 'thousand-run', 600_000);
    expect(done.status?.statusLabel).toBe('succeeded');
    expect(done.status?.nodes?.length).toBe(1000);
    expect(done.status?.nodes?.every((n) => n.statusLabel === 'succeeded')).toBe(true);
    const bytes = JSON.stringify(done).length;
    expect(bytes).toBeLessThan(ETCD_OBJECT_LIMIT / 3);
    console.log(
      `1,000-step run: ${String(bytes)} bytes as JSON (${((100 * bytes) / ETCD_OBJECT_LIMIT).toFixed(0)}% of the etcd object limit)`,
    );
  }, 660_000);

  it("writes a chain's status once per step, never again when nothing changed", async () => {
    const updates = async (): Promise<number> =>
      Number(
        /kubedag_api_writes_total\{verb="update"\} (\d+)/.exec(
          await (await fetch(`${operator.url}/metrics`)).text(),
        )?.[1] ?? NaN,
      );
    await givenDag(ns, 'chain', `steps:\n${Array.from({ length: 20 }, () => '  - "true"').join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const before = await updates();
    await whenRun(ns, 'chain-run', 'chain');
    await finishedRun(ns, 'chain-run');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    // 21 run status writes (start, then one per finished step that also launches the next) and
    // a few coalesced DAG status writes; a status rewritten without change would double it.
    expect((await updates()) - before).toBeLessThanOrEqual(26);
  }, 60_000);
});
