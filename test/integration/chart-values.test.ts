/**
 * The Helm chart's values, rendered with `helm template` alone: the values schema and the
 * chart's own checks refuse what cannot work, naming the value, and the settings reach the
 * operator's and the API server's Deployments as their flags and environment. The plain
 * manifests rendered from it are current. Nothing here needs the cluster; what does is in
 * chart.test.ts.
 */
import { readFileSync } from 'node:fs';
import { loadAll } from 'js-yaml';
import { describe, expect, inject, it } from 'vitest';
import { parseConfig } from '../../operator/config.ts';
import { MANIFEST, renderManifests } from '../../scripts/render-manifests.ts';
import { chart, helm } from './chart-support.ts';

describe('the Helm chart', () => {
  it.each([
    ['a negative replica count', 'operator.replicas=-1', '/operator/replicas'],
    ['an unknown auth mode', 'apiServer.auth.mode=kerberos', '/apiServer/auth/mode'],
    ['a misspelt key', 'operator.replicaz=2', "additional properties 'replicaz'"],
    ['a namespace that is not a DNS label', 'operator.namespaces={Team_A}', '/operator/namespaces/0'],
    ['an unknown log store', 'operator.logs.store=gcs', '/operator/logs/store'],
    ['an unknown pod policy', 'operator.podPolicy=lax', '/operator/podPolicy'],
    ['the S3 log store without a bucket', 'operator.logs.store=s3', '/operator/logs/s3/bucket'],
    ['an S3 endpoint with a path', 'operator.logs.s3.endpoint=http://minio:9000/logs', '/operator/logs/s3/endpoint'],
  ])('refuses %s with the values path named (values.schema.json)', (_what, value, named) => {
    const run = (): string => helm('template', 'kd', chart, '--set', value);
    expect(run).toThrow(named);
  });

  it.each([
    [
      'the directory store without a volume',
      ['operator.logs.persistence.enabled=false'],
      'operator.replicas > 1 with the directory log store needs a shared volume',
    ],
    [
      'the directory store on a ReadWriteOnce volume',
      ['operator.logs.persistence.accessModes={ReadWriteOnce}'],
      'needs operator.logs.persistence.accessModes to include ReadWriteMany',
    ],
  ])('refuses two operator replicas on %s, naming the S3 store as a way out', (_what, values, message) => {
    // history.store=none: the SQLite history file's own rule for the same volume is the next test's.
    const run = (): string =>
      helm(
        'template',
        'kd',
        chart,
        '--set',
        'operator.replicas=2',
        '--set',
        'history.store=none',
        ...values.flatMap((v) => ['--set', v]),
      );
    expect(run).toThrow(message);
    expect(run).toThrow('operator.logs.store=s3');
    // One replica needs no shared volume.
    expect(
      helm('template', 'kd', chart, '--set', 'operator.replicas=1', ...values.flatMap((v) => ['--set', v])),
    ).toContain('kind: Deployment');
  });

  it.each([
    { name: 'one replica on a ReadWriteOnce log volume (the default) is recreated', values: [], strategy: 'Recreate' },
    {
      name: 'two replicas on a ReadWriteMany log volume roll',
      values: ['operator.replicas=2', 'operator.logs.persistence.accessModes={ReadWriteMany}'],
      strategy: undefined,
    },
    {
      name: 'two replicas on the S3 log store roll',
      values: [
        'operator.replicas=2',
        'operator.logs.store=s3',
        'operator.logs.s3.bucket=kubedag-logs',
        'history.store=postgres',
        'history.postgres.existingSecret=history-db',
      ],
      strategy: undefined,
    },
  ])('updates an operator of $name', ({ values, strategy }) => {
    const objects = loadAll(helm('template', 'kd', chart, ...values.flatMap((v) => ['--set', v]))) as ({
      kind?: string;
      metadata?: { name?: string };
      spec?: { strategy?: { type?: string } };
    } | null)[];
    const operator = objects.find((o) => o?.kind === 'Deployment' && o.metadata?.name?.endsWith('-operator') === true);
    expect([operator === undefined, operator?.spec?.strategy?.type]).toEqual([false, strategy]);
  });

  it.each([
    [
      'on the S3 log store, which has no volume for its file',
      ['operator.logs.store=s3', 'operator.logs.s3.bucket=kubedag-logs'],
      "history.store=sqlite keeps its file on the operator's log volume",
    ],
    [
      'with two replicas on a ReadWriteOnce volume',
      ['operator.replicas=2'],
      "operator.replicas > 1 with history.store=sqlite needs the operator's log volume to be ReadWriteMany",
    ],
  ])('refuses the SQLite history store %s, naming postgres as a way out', (_what, values, message) => {
    const run = (): string => helm('template', 'kd', chart, ...values.flatMap((v) => ['--set', v]));
    expect(run).toThrow(message);
    expect(run).toThrow('history.store=postgres');
  });

  it.each([
    ['the PostgreSQL history store without its Secret', 'history.store=postgres', '/history/postgres/existingSecret'],
    ['an unknown history store', 'history.store=mongo', '/history/store'],
    ['an archive window that is no duration', 'history.archiveAfter=-1h', '/history/archiveAfter'],
  ])('refuses %s with the values path named (values.schema.json)', (_what, value, named) => {
    expect(() => helm('template', 'kd', chart, '--set', value)).toThrow(named);
  });

  it('gives the operator and the API server the PostgreSQL URL from its Secret, and no history file', () => {
    const text = helm(
      'template',
      'kd',
      chart,
      '--set',
      'history.store=postgres',
      '--set',
      'history.postgres.existingSecret=history-db',
      '--set',
      'history.archiveAfter=30m',
    );
    type Container = { args: string[]; env?: unknown[]; volumeMounts?: { mountPath: string }[] };
    const deployments = (
      loadAll(text) as ({ kind?: string; spec?: { template: { spec: { containers: Container[] } } } } | null)[]
    )
      .filter((o) => o?.kind === 'Deployment')
      .map((o) => o?.spec?.template.spec.containers[0]);
    const fromSecret = {
      name: 'KUBEDAG_HISTORY_POSTGRES_URL',
      valueFrom: { secretKeyRef: { name: 'history-db', key: 'url' } },
    };
    expect(deployments).toHaveLength(2);
    for (const container of deployments) {
      expect(container?.env).toContainEqual(fromSecret);
      expect(container?.args).toContain('--history-store=postgres');
      expect((container?.volumeMounts ?? []).map((m) => m.mountPath)).not.toContain('/var/lib/kubedag/history');
    }
    const operatorArgs = deployments.find((c) => c?.args.includes('--archive-after=30m'))?.args ?? [];
    expect(parseConfig(operatorArgs, { KUBEDAG_HISTORY_POSTGRES_URL: 'postgres://u:p@db:5432/kd' })).toMatchObject({
      history: { kind: 'postgres' },
      archiveAfterMs: 1_800_000,
    });
  });

  it('has current plain manifests (make manifests)', async () => {
    expect(
      readFileSync(MANIFEST, 'utf8') === (await renderManifests(inject('binaries').helm)),
      'manifests/kubedag.yaml is stale: run `make manifests`',
    ).toBe(true);
  });
});
