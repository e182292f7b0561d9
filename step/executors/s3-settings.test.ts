import { describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { endpointUrl, s3Settings } from './s3-settings.ts';
import { contentTypeOf, goDurationText, listObject } from './s3-result.ts';

const spec = (command: string, config: Record<string, unknown>, s3?: Record<string, unknown>): ExecutorSpec => ({
  type: 's3',
  command,
  config,
  ...(s3 === undefined ? {} : { s3 }),
});
const read = (command: string, config: Record<string, unknown>, s3?: Record<string, unknown>) =>
  s3Settings(spec(command, config, s3), { HOME: '/home/u', KEY: 'reports/1.csv', SECRET: 's3cr3t' }, '/work');

describe('s3 settings', () => {
  it("take the DAG's block as defaults and the step's settings over it, key by key", () => {
    const settings = read(
      ' Upload ',
      { source: 'out/r.csv', key: '${KEY}', region: 'eu-west-1', force_path_style: 'false' },
      { endpoint: 'minio:9000', disable_ssl: true, bucket: 'b', region: 'us-west-2', force_path_style: true },
    );
    expect(settings).toMatchObject({
      operation: 'upload',
      bucket: 'b',
      key: 'reports/1.csv',
      source: '/work/out/r.csv',
      partSize: 10 * 1024 * 1024,
      concurrency: 5,
      maxKeys: 1000,
      outputFormat: 'json',
      connection: { region: 'eu-west-1', endpoint: 'http://minio:9000', forcePathStyle: false },
    });
    expect(settings.connection.credentials).toBeUndefined();
  });

  it('use static credentials only when both the key id and the secret are given', () => {
    const both = read('list', { access_key_id: 'id', secret_access_key: '${SECRET}' }, { bucket: 'b' });
    expect(both.connection).toMatchObject({
      region: 'us-east-1',
      credentials: { accessKeyId: 'id', secretAccessKey: 's3cr3t' },
    });
    expect(read('list', { bucket: 'b', access_key_id: 'id' }).connection.credentials).toBeUndefined();
  });

  it('normalise a storage class and an ACL written in another letter case, and ignore keys Dagu does not read', () => {
    expect(
      read('upload', { bucket: 'b', key: 'k', source: 's', storage_class: 'standard_ia', acl: 'PRIVATE', x: 1 }),
    ).toMatchObject({ storageClass: 'STANDARD_IA', acl: 'private' });
  });

  it.each([
    ['no operation', '', {}, 's3: configuration error: command must specify s3 operation'],
    [
      'an unknown operation',
      'copy',
      { bucket: 'b' },
      's3: configuration error: unsupported s3 operation "copy" (valid: upload, download, list, delete)',
    ],
    ['no bucket from step or DAG', 'list', {}, 's3: configuration error: bucket is required'],
    ['an upload without source', 'upload', { bucket: 'b', key: 'k' }, 'source is required for upload'],
    ['a download without key', 'download', { bucket: 'b', destination: 'd' }, 'key is required for download'],
    ['a delete without key or prefix', 'delete', { bucket: 'b' }, 'key or prefix is required for delete'],
    ['a storage class S3 lacks', 'list', { bucket: 'b', storage_class: 'cold' }, 'invalid storage class "cold"'],
    ['an output format', 'list', { bucket: 'b', output_format: 'csv' }, "output_format must be 'json' or 'jsonl'"],
    ['sse aws:kms without a key', 'list', { bucket: 'b', sse: 'aws:kms' }, 'sse_kms_key_id is required'],
    ['parts under 5 MB', 'list', { bucket: 'b', part_size: 4 }, 'part_size must be >= 5 MB'],
    ['a negative max_keys', 'list', { bucket: 'b', max_keys: -1 }, 'max_keys must be >= 0'],
    ['a count written as words', 'list', { bucket: 'b', max_keys: 'ten' }, 'invalid s3 configuration: max_keys'],
  ])('refuse %s', (_name, command, config, message) => {
    expect(() => read(command, config)).toThrow(message);
  });
});

describe('s3 results', () => {
  it.each([
    [0, '0s'],
    [12, '12ms'],
    [1000, '1s'],
    [1500, '1.5s'],
    [123_004, '2m3.004s'],
    [3_600_000, '1h0m0s'],
  ])('write %i ms as Go writes the duration: %s', (ms, want) => {
    expect(goDurationText(ms)).toBe(want);
  });

  it.each([
    ['', 'data/report.CSV', 'text/csv; charset=utf-8'],
    ['', 'archive', 'application/octet-stream'],
    ['application/x-ndjson', 'a.json', 'application/x-ndjson'],
  ])('give an upload the Content-Type written, else by extension (%s %s)', (written, source, want) => {
    expect(contentTypeOf(written, source)).toBe(want);
  });

  it("write a listed object as Dagu does: RFC 3339 in whole seconds, the ETag's quotes dropped, a prefix with only its key", () => {
    expect(
      listObject({ Key: 'a', Size: 3, LastModified: new Date('2026-11-29T13:00:00.250Z'), ETag: '"abc"' }),
    ).toEqual({ key: 'a', size: 3, lastModified: '2026-11-29T13:00:00Z', etag: 'abc' });
    expect(listObject({ Key: 'dir/' })).toEqual({ key: 'dir/', size: 0, lastModified: '' });
  });

  it('turn an endpoint without a scheme into https, or http with disable_ssl', () => {
    expect([endpointUrl('s3.example.com', false), endpointUrl('minio:9000', true), endpointUrl('', true)]).toEqual([
      'https://s3.example.com',
      'http://minio:9000',
      undefined,
    ]);
  });
});
