/**
 * Dagu 2.x's s3.* actions on the local control plane (issue 26), against a real S3-compatible
 * server (MinIO on loopback, which the step Pods reach as the host's processes): a DAG whose
 * `s3` block names the server and bucket, with the credentials from a Kubernetes Secret through
 * the AWS credential chain, uploads a file a step wrote, lists it, downloads it, deletes it and
 * lists nothing; the credentials appear in no step log and no run status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { S3_SERVER_BUILD_MS, startS3Server, type S3Server } from '../../cluster/s3-server.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';
import {
  finishedRun,
  givenDag,
  startOperator,
  stepLog,
  stepStates,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';

const { core } = clients();

let ns = '';
let operator: RunningOperator;
let s3: S3Server;

beforeAll(async () => {
  s3 = await startS3Server('dialect-s3');
  ns = await createNamespace(core, 'dialect-s3');
  await core.createNamespacedSecret({
    namespace: ns,
    body: { metadata: { name: 'minio' }, stringData: { ...s3.env } },
  });
  operator = await startOperator(ns);
}, S3_SERVER_BUILD_MS);

afterAll(async () => {
  await operator.stop();
  await deleteNamespace(core, ns);
  await s3.stop();
});

describe('a Dagu 2.x DAG with s3.* actions', () => {
  it('uploads, lists, downloads and deletes through the DAG-level s3 block, and never shows the credentials', async () => {
    await givenDag(
      ns,
      's3-actions',
      `
type: chain
s3:
  endpoint: ${s3.endpoint}
  force_path_style: true
  bucket: dialect-s3
kubernetes:
  envFrom: [{secretRef: {name: minio}}]
steps:
  - name: make
    run: mkdir -p out && printf 'id,total\\n1,42\\n' > out/report.csv
  - name: upload
    action: s3.upload
    with: {source: out/report.csv, key: "reports/\${DAG_RUN_ID}.csv", metadata: {team: data}}
  - name: list
    action: s3.list
    with: {prefix: reports/}
  - name: download
    action: s3.download
    with: {key: "reports/\${DAG_RUN_ID}.csv", destination: back/report.csv}
  - name: check
    run: cat back/report.csv
  - name: delete
    action: s3.delete
    with: {prefix: reports/}
  - name: empty
    action: s3.list
    with: {prefix: reports/, output_format: jsonl}
`,
    );
    await whenRun(ns, 's3-actions-1', 's3-actions');
    const done = await finishedRun(ns, 's3-actions-1', 120_000);
    expect(stepStates(done)).toEqual({
      make: 'succeeded',
      upload: 'succeeded',
      list: 'succeeded',
      download: 'succeeded',
      check: 'succeeded',
      delete: 'succeeded',
      empty: 'succeeded',
    });
    const key = `reports/${done.spec.dagRunId ?? ''}.csv`;
    const json = async (step: string) =>
      JSON.parse((await stepLog(operator, done, step)) ?? '{}') as Record<string, unknown>;
    expect(await json('upload')).toMatchObject({
      operation: 'upload',
      uri: `s3://dialect-s3/${key}`,
      size: 14,
      contentType: 'text/csv; charset=utf-8',
    });
    expect(((await json('list')).objects as { key: string }[]).map((o) => o.key)).toEqual([key]);
    expect(await json('download')).toMatchObject({ operation: 'download', size: 14 });
    expect(await stepLog(operator, done, 'check')).toBe('id,total\n1,42\n');
    expect(await json('delete')).toMatchObject({ deletedCount: 1, deletedKeys: [key] });
    expect(await stepLog(operator, done, 'empty')).toBe('');
    await expect(s3.client.send(new HeadObjectCommand({ Bucket: 'dialect-s3', Key: key }))).rejects.toThrow();
    const logs = await Promise.all(
      ['upload', 'list', 'download', 'delete'].flatMap((step) => [
        stepLog(operator, done, step),
        stepLog(operator, done, step, 'stderr'),
      ]),
    );
    for (const text of [...logs, JSON.stringify(done)]) expect(text).not.toContain(s3.env.AWS_SECRET_ACCESS_KEY);
  });
});
