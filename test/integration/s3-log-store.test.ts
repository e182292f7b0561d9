/**
 * The S3 log store against a real S3-compatible server (MinIO, built from its Go module):
 * what is written is read back, an attempt is archived only once both streams are, names
 * cannot reach another run's keys, and a run's logs go page by page and batch by batch,
 * past S3's 1,000 keys per answer; a run's artifact manifests are listed and go with it.
 * Failures say what S3 said.
 */
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3LogStore } from '../../operator/logs/s3-store.ts';
import type { S3StoreConfig } from '../../operator/logs/store-config.ts';
import type { LogRef } from '../../operator/logs/keys.ts';
import { S3_SERVER_BUILD_MS, startS3Server, type S3Server } from '../../cluster/s3-server.ts';

let server: S3Server;
const stores: S3LogStore[] = [];

beforeAll(async () => {
  server = await startS3Server();
  // The store reads its credentials and region the standard way, from the environment.
  Object.assign(process.env, server.env);
}, S3_SERVER_BUILD_MS);

afterAll(async () => {
  for (const store of stores) store.destroy();
  await server.stop();
});

async function storeOf(config: Partial<S3StoreConfig> = {}, batchSize?: number): Promise<S3LogStore> {
  const store = await S3LogStore.open(
    { kind: 's3', bucket: server.bucket, prefix: '', endpoint: server.endpoint, forcePathStyle: true, ...config },
    batchSize === undefined ? {} : { batchSize },
  );
  stores.push(store);
  return store;
}

/** Every key in the bucket under a prefix, listed by the test's own client. */
async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await server.client.send(
      new ListObjectsV2Command({ Bucket: server.bucket, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).map((o) => o.Key ?? ''));
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return keys.sort();
}

const ref = (dagRunId: string, step: string, attempt = 0): LogRef => ({
  namespace: 'team-a',
  dagName: 'etl',
  dagRunId,
  step,
  attempt,
});

describe('the S3 log store', () => {
  it('reads back both streams as written, under the configured prefix, and nothing for an attempt never written', async () => {
    const store = await storeOf({ prefix: 'clusters/blue/' });
    await store.check();
    expect([await store.exists(ref('rw', 'load')), await store.read(ref('rw', 'load'), 'stdout')]).toEqual([
      false,
      undefined,
    ]);
    await store.write(ref('rw', 'load'), { stdout: 'rows: 42\nüñí\n', stderr: '' });
    expect([
      await store.exists(ref('rw', 'load')),
      await store.read(ref('rw', 'load'), 'stdout'),
      await store.read(ref('rw', 'load'), 'stderr'),
    ]).toEqual([true, 'rows: 42\nüñí\n', '']);
    expect(await keysUnder('clusters/blue/team-a/etl/rw/')).toEqual([
      'clusters/blue/team-a/etl/rw/load.0.stderr',
      'clusters/blue/team-a/etl/rw/load.0.stdout',
    ]);
  });

  it("keeps an attempt's artifact manifest beside its logs, lists a run's manifests, and removes them with the run", async () => {
    const store = await storeOf({ prefix: 'art/' });
    await store.write(ref('ar', 'write'), { stdout: '', stderr: '', artifacts: '{"at":"1","files":[]}' });
    await store.write(ref('ar', 'other'), { stdout: 'x', stderr: '' });
    await store.write(ref('ar1', 'write'), { stdout: '', stderr: '', artifacts: '{"at":"2","files":[]}' });
    expect(await store.artifactManifests('team-a', 'etl', 'ar')).toEqual(['{"at":"1","files":[]}']);
    await store.removeRun('team-a', 'etl', 'ar');
    expect([
      await store.artifactManifests('team-a', 'etl', 'ar'),
      await store.artifactManifests('team-a', 'etl', 'ar1'),
    ]).toEqual([[], ['{"at":"2","files":[]}']]);
  });

  it('does not count an attempt whose stderr was never written as archived, and a second write completes it', async () => {
    const store = await storeOf();
    // What a writer that died between its two PUTs leaves behind.
    await server.client.send(
      new PutObjectCommand({ Bucket: server.bucket, Key: 'team-a/etl/half/extract.1.stdout', Body: 'partial' }),
    );
    expect(await store.exists(ref('half', 'extract', 1))).toBe(false);
    await store.write(ref('half', 'extract', 1), { stdout: 'whole', stderr: 'warn' });
    await store.write(ref('half', 'extract', 1), { stdout: 'whole', stderr: 'warn' });
    expect([
      await store.exists(ref('half', 'extract', 1)),
      await store.read(ref('half', 'extract', 1), 'stdout'),
      await store.read(ref('half', 'extract', 1), 'stderr'),
    ]).toEqual([true, 'whole', 'warn']);
    expect(await keysUnder('team-a/etl/half/')).toEqual([
      'team-a/etl/half/extract.1.stderr',
      'team-a/etl/half/extract.1.stdout',
    ]);
  });

  it('keeps names that look like paths inside their own run', async () => {
    const store = await storeOf();
    await store.write(ref('r1', '../r10/step'), { stdout: 'climber', stderr: '' });
    await store.write(ref('r10', 'step'), { stdout: 'neighbour', stderr: '' });
    expect(await store.read(ref('r10', 'step'), 'stdout')).toBe('neighbour');
    expect(await store.read(ref('r1', '../r10/step'), 'stdout')).toBe('climber');
    expect(await keysUnder('team-a/etl/r1/')).toEqual([
      'team-a/etl/r1/%2E%2E%2Fr10%2Fstep.0.stderr',
      'team-a/etl/r1/%2E%2E%2Fr10%2Fstep.0.stdout',
    ]);
  });

  it('removes every log of a run page by page (7 keys a page), and none of the run whose id it begins', async () => {
    const store = await storeOf({}, 7);
    for (let attempt = 0; attempt < 40; attempt++)
      await store.write(ref('many', 'loop', attempt), { stdout: `attempt ${String(attempt)}`, stderr: '' });
    await store.write(ref('many0', 'loop'), { stdout: 'kept', stderr: '' });
    expect(await keysUnder('team-a/etl/many/')).toHaveLength(80);
    await store.removeRun('team-a', 'etl', 'many');
    expect(await keysUnder('team-a/etl/many/')).toEqual([]);
    expect(await store.read(ref('many0', 'loop'), 'stdout')).toBe('kept');
    // A run with no logs at all (retention after a crash that removed them) is no error.
    await store.removeRun('team-a', 'etl', 'many');
  });

  it('removes a run of more keys than S3 lists or deletes at once (1,000)', async () => {
    const store = await storeOf();
    const keys = Array.from({ length: 1150 }, (_, i) => `team-a/etl/big/s${String(i)}.0.stdout`);
    for (let start = 0; start < keys.length; start += 50) {
      await Promise.all(
        keys
          .slice(start, start + 50)
          .map((Key) => server.client.send(new PutObjectCommand({ Bucket: server.bucket, Key, Body: 'x' }))),
      );
    }
    expect(await keysUnder('team-a/etl/big/')).toHaveLength(1150);
    await store.removeRun('team-a', 'etl', 'big');
    expect(await keysUnder('team-a/etl/big/')).toEqual([]);
  });

  it.each([
    {
      name: 'a bucket that does not exist',
      config: { bucket: 'no-such-bucket' },
      message: 'S3 log store: listing s3://no-such-bucket/ failed: NoSuchBucket: The specified bucket does not exist',
    },
    {
      name: 'a server nobody listens on',
      config: { endpoint: 'http://127.0.0.1:1' },
      message: 'S3 log store: listing s3://kubedag-logs/ failed: connect ECONNREFUSED 127.0.0.1:1',
    },
  ])('fails its start check on $name with what went wrong', async ({ config, message }) => {
    await expect((await storeOf(config)).check()).rejects.toThrow(message);
  });

  it('names the object and the cause when S3 refuses the credentials', async () => {
    const store = await storeOf();
    const saved = process.env.AWS_SECRET_ACCESS_KEY;
    process.env.AWS_SECRET_ACCESS_KEY = 'not-the-secret';
    try {
      await expect(store.check()).rejects.toThrow(
        'S3 log store: listing s3://kubedag-logs/ failed: SignatureDoesNotMatch',
      );
      await expect(store.exists(ref('rw', 'load'))).rejects.toThrow(
        'S3 log store: looking up s3://kubedag-logs/team-a/etl/rw/load.0.stderr failed: access denied (check the credentials and the bucket policy)',
      );
      await expect(store.read(ref('rw', 'load'), 'stdout')).rejects.toThrow(
        'S3 log store: reading s3://kubedag-logs/team-a/etl/rw/load.0.stdout failed: SignatureDoesNotMatch',
      );
    } finally {
      process.env.AWS_SECRET_ACCESS_KEY = saved;
    }
  });
});
