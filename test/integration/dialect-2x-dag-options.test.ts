/**
 * Dagu 2.x's params as a JSON Schema and DAG-level options (issue 26), run by the operator on
 * the local control plane: an inline params schema checked and defaulted when a run starts,
 * history kept by count (hist_retention_runs), and missed scheduled runs caught up from the
 * DAG's watermark (catchup_window with overlap_policy all), never twice across a restart of
 * the operator. The pure decisions have unit tables; these prove the operator carries them out.
 */
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { statusCode } from '../../core/kube/errors.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { scheduledRunId } from '../../operator/schedule/ticks.ts';
import { clients, waitFor } from './support.ts';
import {
  finishedRun,
  getRun,
  givenDag,
  runsOf,
  startOperator,
  stepLog,
  whenRun,
  type RunningOperator,
  withOperatorNamespace,
} from './operator-support.ts';

const { kube } = clients();

let ns = '';
let operator: RunningOperator;
withOperatorNamespace('dialect-opts', (made) => ({ ns, operator } = made));

async function gone(name: string): Promise<boolean> {
  return getRun(ns, name).then(
    () => false,
    (error: unknown) => {
      if (statusCode(error) === 404) return true;
      throw error;
    },
  );
}

describe('a Dagu 2.x DAG with DAG-level options', () => {
  it('checks and defaults the values a run is given with its inline params schema', async () => {
    await givenDag(
      ns,
      'schema',
      `
params:
  type: object
  properties:
    REGION: {type: string, enum: [eu, us], default: eu}
    BATCH: {type: integer, minimum: 1, maximum: 500, default: 50}
  additionalProperties: false
steps:
  - name: show
    run: echo "$REGION $BATCH"
`,
    );
    await whenRun(ns, 'schema-1', 'schema', { params: 'BATCH=7' });
    const done = await finishedRun(ns, 'schema-1', 120_000);
    expect([done.status?.statusLabel, done.status?.error]).toEqual(['succeeded', undefined]);
    expect(await stepLog(operator, done, 'show')).toBe('eu 7\n');
    await whenRun(ns, 'schema-2', 'schema', { params: 'BATCH=900' });
    const refused = await finishedRun(ns, 'schema-2', 120_000);
    expect([refused.status?.statusLabel, refused.status?.error]).toEqual(['failed', 'params.BATCH: must be <= 500']);
  });

  it('keeps only the newest runs with hist_retention_runs', async () => {
    await givenDag(ns, 'counted', 'hist_retention_runs: 2\nsteps:\n  - name: s\n    run: echo counted');
    for (const name of ['counted-1', 'counted-2', 'counted-3']) {
      await whenRun(ns, name, 'counted');
      await finishedRun(ns, name, 120_000);
    }
    await waitFor('the oldest run to be deleted', () => gone('counted-1'), 30_000, 200);
    expect([await gone('counted-2'), await gone('counted-3')]).toEqual([false, false]);
  });

  it('catches up the scheduled runs it missed, one at a time, from the watermark, never twice', async () => {
    const hour = 3_600_000;
    const thisHour = Math.floor(Date.now() / hour) * hour;
    const watermark = new Date(thisHour - 2 * hour);
    // As if the scheduler had last started the run two hours ago, then been down since: the DAG is
    // created with its watermark, so that no tick sees it without one (which would start one now).
    const manifest = dagManifest(
      'hourly',
      loadDag(
        'schedule: "0 * * * *"\ncatchup_window: 3h\noverlap_policy: all\nsteps:\n  - name: s\n    run: echo caught up',
        { fileName: 'hourly' },
      ).documents,
      ns,
    );
    await kube.dags.create(ns, {
      ...manifest,
      metadata: {
        ...manifest.metadata,
        annotations: { ...manifest.metadata.annotations, [ANNOTATIONS.scheduleWatermark]: watermark.toISOString() },
      },
    });
    const first = scheduledRunId('scheduled', new Date(thisHour - hour));
    await waitFor(
      'the first missed hour to run',
      async () => (await runsOf(ns, 'hourly')).some((r) => r.spec.dagRunId === first),
      70_000,
      200,
    );
    const ids = (await runsOf(ns, 'hourly')).map((r) => r.spec.dagRunId);
    // The hour at the watermark ran before the outage: it is not started again.
    expect(ids).not.toContain(scheduledRunId('scheduled', watermark));
    const dag = await kube.dags.get(ns, 'hourly');
    expect(Date.parse(dag.metadata?.annotations?.[ANNOTATIONS.scheduleWatermark] ?? '')).toBeGreaterThanOrEqual(
      thisHour - hour,
    );

    // A restarted operator starts from the watermark: no minute gets a second run.
    await operator.stop();
    operator = await startOperator(ns);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = (await runsOf(ns, 'hourly')).map((r) => r.spec.dagRunId ?? '');
    expect(new Set(after).size).toBe(after.length);
    expect(after.every((id) => id >= first)).toBe(true);
  });
});
