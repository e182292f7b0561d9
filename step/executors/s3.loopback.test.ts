/**
 * s3.* against a real S3-compatible server on loopback (MinIO, cluster/s3-server.ts): a file
 * goes up (in parts when it is larger than part_size), is listed, comes back down byte for
 * byte, and is deleted, with the DAG's `s3` block as the connection and the credentials
 * nowhere in what the step writes; failures end with Dagu's exit code of their kind.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { S3_SERVER_BUILD_MS, startS3Server, type S3Server } from '../../cluster/s3-server.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';
import { runS3 } from './s3.ts';

let server: S3Server;
let dir: { path: string; remove: () => Promise<void> };

beforeAll(async () => {
  server = await startS3Server('actions');
  dir = await temporaryDir('s3');
}, S3_SERVER_BUILD_MS);

afterAll(async () => {
  await server.stop();
  await dir.remove();
});

/** The DAG's block, its secret by reference as a DAG should write it; the step's settings over it. */
const spec = (command: string, config: Record<string, unknown>): ExecutorSpec => ({
  type: 's3',
  command,
  config,
  s3: {
    endpoint: server.endpoint,
    force_path_style: true,
    bucket: 'actions',
    access_key_id: server.env.AWS_ACCESS_KEY_ID,
    secret_access_key: '${S3_SECRET}',
  },
});

async function run(command: string, config: Record<string, unknown>) {
  const io = captureIO({ cwd: dir.path, env: { S3_SECRET: server.env.AWS_SECRET_ACCESS_KEY ?? '' } });
  const code = await runS3(spec(command, config), io);
  return { code, out: io.out(), err: io.err(), json: () => JSON.parse(io.out()) as Record<string, unknown> };
}

describe('s3.* against MinIO', () => {
  it('uploads, lists, downloads and deletes a file, and writes no credential', async () => {
    await writeFile(join(dir.path, 'report.csv'), 'a,b\n1,2\n');
    const up = await run('upload', { source: 'report.csv', key: 'in/report.csv', metadata: { team: 'a' } });
    expect([up.code, up.err]).toEqual([0, '']);
    expect(up.json()).toMatchObject({
      operation: 'upload',
      success: true,
      bucket: 'actions',
      key: 'in/report.csv',
      uri: 's3://actions/in/report.csv',
      size: 8,
      contentType: 'text/csv; charset=utf-8',
    });
    const head = await server.client.send(new HeadObjectCommand({ Bucket: 'actions', Key: 'in/report.csv' }));
    expect(head.Metadata).toEqual({ team: 'a' });

    const listed = await run('list', { prefix: 'in/' });
    expect(listed.json()).toMatchObject({ operation: 'list', prefix: 'in/', totalCount: 1 });
    expect((listed.json().objects as { key: string; size: number }[]).map((o) => [o.key, o.size])).toEqual([
      ['in/report.csv', 8],
    ]);

    const down = await run('download', { key: 'in/report.csv', destination: 'back/report.csv' });
    expect(down.json()).toMatchObject({
      operation: 'download',
      destination: join(dir.path, 'back/report.csv'),
      size: 8,
    });
    expect(await readFile(join(dir.path, 'back/report.csv'), 'utf8')).toBe('a,b\n1,2\n');

    const gone = await run('delete', { key: 'in/report.csv' });
    expect(gone.json()).toMatchObject({ operation: 'delete', deletedCount: 1, deletedKeys: ['in/report.csv'] });
    expect((await run('list', { prefix: 'in/' })).json()).toMatchObject({ objects: null, totalCount: 0 });
    for (const result of [up, listed, down, gone])
      expect(result.out + result.err).not.toContain(server.env.AWS_SECRET_ACCESS_KEY);
  });

  it('uploads a file larger than part_size in parts, and downloads it whole', async () => {
    const big = Buffer.alloc(11 * 1024 * 1024, 7);
    big.write('start');
    await writeFile(join(dir.path, 'big.bin'), big);
    const up = await run('upload', { source: 'big.bin', key: 'big.bin', part_size: 5, concurrency: 2 });
    expect(up.code).toBe(0);
    // A multipart upload's ETag is the parts' digest followed by their number.
    expect(up.json().etag).toMatch(/-3$/);
    await run('download', { key: 'big.bin', destination: 'big.back' });
    expect((await readFile(join(dir.path, 'big.back'))).equals(big)).toBe(true);
  });

  it('lists one level by the delimiter, or everything with recursive, up to max_keys, and as JSON lines', async () => {
    for (const key of ['logs/a.txt', 'logs/b.txt', 'logs/old/c.txt'])
      await server.client.send(new PutObjectCommand({ Bucket: 'actions', Key: key, Body: key }));
    const keys = (result: { json: () => Record<string, unknown> }): string[] =>
      (result.json().objects as { key: string }[]).map((o) => o.key);
    expect(keys(await run('list', { prefix: 'logs/' }))).toEqual(['logs/a.txt', 'logs/b.txt', 'logs/old/']);
    expect(keys(await run('list', { prefix: 'logs/', recursive: true, max_keys: 2 }))).toEqual([
      'logs/a.txt',
      'logs/b.txt',
    ]);
    const lines = await run('list', { prefix: 'logs/', recursive: 'true', output_format: 'jsonl' });
    expect(lines.out.split(/\n(?=\{)/).map((line) => (JSON.parse(line) as { key: string }).key)).toEqual([
      'logs/a.txt',
      'logs/b.txt',
      'logs/old/c.txt',
    ]);
    const gone = await run('delete', { prefix: 'logs/' });
    expect(gone.json()).toMatchObject({ success: true, prefix: 'logs/', deletedCount: 3 });
    expect((await run('delete', { prefix: 'logs/', quiet: true })).out).toBe('');
  });

  it.each([
    ['a missing source (3)', 'upload', { source: 'nope.txt', key: 'k' }, 3, 's3: source not found: source file'],
    ['a missing object (9)', 'download', { key: 'nope', destination: 'x' }, 9, 's3: download failed: NoSuchKey'],
    ['a missing bucket (10)', 'list', { bucket: 'no-such-bucket' }, 10, 's3: list failed: NoSuchBucket'],
    ['a delete without key or prefix (2)', 'delete', {}, 2, 's3: configuration error: key or prefix is required'],
    ['a directory as source (2)', 'upload', { source: '.', key: 'k' }, 2, 'is a directory, not a file'],
  ])('fails for %s with Dagu exit code', async (_name, command, config, code, message) => {
    const result = await run(command, config);
    expect([result.code, result.err]).toEqual([code, expect.stringContaining(message)]);
  });

  it('fails a request with the wrong secret and does not write the secret', async () => {
    await writeFile(join(dir.path, 'x.txt'), 'x');
    const result = await run('upload', { source: 'x.txt', key: 'x.txt', secret_access_key: 'not-the-secret-1234' });
    expect([result.code, result.err]).toEqual([8, expect.stringContaining('s3: upload failed: SignatureDoesNotMatch')]);
    expect(result.err).not.toContain('not-the-secret-1234');
  });
});
