import { describe, expect, it } from 'vitest';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { dag as aDag } from '../../test/builders/dag.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { dagStatus, latestFromSummary } from './reconciler.ts';

const dag = (
  spec: Record<string, unknown>,
  status?: DagResource['status'],
  annotations: Record<string, string> = {},
): DagResource => {
  const builder = aDag('nightly').generation(3).annotate(annotations).spec(spec);
  return (status === undefined ? builder : builder.status(status)).build();
};
const run = (name: string, created: string, label: string): DagRunResource =>
  dagRun(name)
    .created(new Date(created))
    .spec({ dagRef: { name: 'nightly' }, dagRunId: name })
    .status({ status: 4, statusLabel: label })
    .build();
const now = new Date('2026-05-01T10:30:00Z');

describe('dagStatus', () => {
  it('reports a valid DAG with its schedule, next start and latest run', () => {
    const status = dagStatus(
      dag({ schedule: '0 12 * * *', steps: ['echo'] }),
      [run('old', '2026-04-01T00:00:00Z', 'failed'), run('new', '2026-04-30T00:00:00Z', 'succeeded')],
      now,
    );
    expect(status).toMatchObject({
      valid: true,
      errors: [],
      schedule: '0 12 * * *',
      nextRun: '2026-05-01T12:00:00.000Z',
      suspended: false,
      observedGeneration: 3,
    });
    expect(status.latestRun).toMatchObject({ resourceName: 'new', statusLabel: 'succeeded' });
    expect(status.conditions?.[0]).toMatchObject({ type: 'Valid', status: 'True', reason: 'Loaded' });
  });

  it('gives the next start in the scheduler zone for expressions without CRON_TZ', () => {
    // Now (10:30 UTC) is 19:30 in Tokyo, past that day's 12:00: the next is 03:00 UTC tomorrow.
    expect(dagStatus(dag({ schedule: '0 12 * * *', steps: ['echo'] }), [], now, 'Asia/Tokyo').nextRun).toBe(
      '2026-05-02T03:00:00.000Z',
    );
  });

  it('reports validation errors, and the suspension the API sets as an annotation', () => {
    const status = dagStatus(dag({ steps: [{ comand: 'x' }] }, {}, { 'kubedag.io/suspended': 'true' }), [], now);
    expect(status).toMatchObject({
      valid: false,
      errors: ['steps[0].comand: unknown key; did you mean "command"?'],
      suspended: true,
    });
    expect(status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InvalidDefinition' });
  });

  it("is invalid above its namespace's pod policy, naming the field and the level, and valid where the level allows it", () => {
    const escape = dag({ kubernetes: { volumes: [{ name: 'host', hostPath: { path: '/etc' } }] }, steps: ['echo'] });
    const status = dagStatus(escape, [], now, 'UTC', { policy: { level: 'baseline', namespace: 'default' } });
    expect(status).toMatchObject({
      valid: false,
      errors: ['kubernetes.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"'],
    });
    expect(status.conditions?.[0]).toMatchObject({ status: 'False', reason: 'InvalidDefinition' });
    expect(dagStatus(escape, [], now, 'UTC', { policy: { level: 'privileged', namespace: 'default' } })).toMatchObject({
      valid: true,
      errors: [],
    });
  });

  it('keeps the condition transition time while the condition holds', () => {
    const first = dagStatus(dag({ steps: ['echo'] }), [], now);
    const later = dagStatus(dag({ steps: ['echo'] }, first), [], new Date('2026-05-02T00:00:00Z'));
    expect(later.conditions?.[0]?.lastTransitionTime).toBe(first.conditions?.[0]?.lastTransitionTime);
  });

  it('shows the archived latest run when etcd holds none of its runs, and the run in etcd when it does', () => {
    const archived = latestFromSummary({
      namespace: 'default',
      dagName: 'nightly',
      dagRunId: 'r1',
      resourceName: 'nightly-r1',
      uid: 'u1',
      status: 4,
      statusLabel: 'succeeded',
      createdAt: '2026-04-29T00:00:00.000Z',
      queuedAt: '',
      startedAt: '2026-04-29T00:00:01Z',
      finishedAt: '2026-04-29T00:00:09Z',
      params: '',
      root: { name: 'nightly', dagRunId: 'r1' },
    });
    expect(dagStatus(dag({ steps: ['echo'] }), [], now, 'UTC', { archived }).latestRun).toEqual({
      resourceName: 'nightly-r1',
      dagRunId: 'r1',
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-04-29T00:00:01Z',
      finishedAt: '2026-04-29T00:00:09Z',
    });
    expect(
      dagStatus(dag({ steps: ['echo'] }), [run('new', '2026-04-30T00:00:00Z', 'failed')], now, 'UTC', { archived })
        .latestRun,
    ).toMatchObject({ resourceName: 'new' });
  });
});
