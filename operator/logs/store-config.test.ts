import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config.ts';

describe('log store configuration', () => {
  it.each([
    {
      name: 'the directory store under /var/lib/kubedag/logs is the default',
      argv: [],
      env: {},
      want: { kind: 'directory', dir: '/var/lib/kubedag/logs' },
    },
    {
      name: 'the directory is set by --log-dir',
      argv: ['--log-dir=/data/logs'],
      env: {},
      want: { kind: 'directory', dir: '/data/logs' },
    },
    {
      name: 'the directory is set by KUBEDAG_LOG_DIR',
      argv: [],
      env: { KUBEDAG_LOG_DIR: '/data/logs' },
      want: { kind: 'directory', dir: '/data/logs' },
    },
    {
      name: 'the S3 store needs only a bucket; no prefix, path style off',
      argv: ['--log-store=s3', '--log-s3-bucket=logs'],
      env: {},
      want: { kind: 's3', bucket: 'logs', prefix: '', forcePathStyle: false },
    },
    {
      name: 'every S3 setting is taken from its flag',
      argv: [
        '--log-store=s3',
        '--log-s3-bucket=logs',
        '--log-s3-prefix=kubedag',
        '--log-s3-endpoint=http://minio.storage:9000',
        '--log-s3-region=eu-west-1',
        '--log-s3-force-path-style=true',
      ],
      env: {},
      want: {
        kind: 's3',
        bucket: 'logs',
        prefix: 'kubedag/',
        endpoint: 'http://minio.storage:9000',
        region: 'eu-west-1',
        forcePathStyle: true,
      },
    },
    {
      name: 'every S3 setting is taken from its KUBEDAG_ variable',
      argv: [],
      env: {
        KUBEDAG_LOG_STORE: 's3',
        KUBEDAG_LOG_S3_BUCKET: 'logs',
        KUBEDAG_LOG_S3_PREFIX: 'a/b',
        KUBEDAG_LOG_S3_ENDPOINT: 'https://s3.example.com/',
        KUBEDAG_LOG_S3_REGION: 'auto',
        KUBEDAG_LOG_S3_FORCE_PATH_STYLE: 'yes',
      },
      want: {
        kind: 's3',
        bucket: 'logs',
        prefix: 'a/b/',
        endpoint: 'https://s3.example.com',
        region: 'auto',
        forcePathStyle: true,
      },
    },
    {
      name: 'a flag wins over its variable',
      argv: ['--log-store=s3', '--log-s3-bucket=flagged'],
      env: { KUBEDAG_LOG_S3_BUCKET: 'variable' },
      want: { kind: 's3', bucket: 'flagged' },
    },
    {
      name: 'slashes around a prefix are dropped and one is put at its end',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-prefix=/kubedag/prod/'],
      env: {},
      want: { kind: 's3', prefix: 'kubedag/prod/' },
    },
    {
      name: 'a prefix of only slashes is no prefix',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-prefix=/'],
      env: {},
      want: { kind: 's3', prefix: '' },
    },
    {
      name: 'empty S3 settings are no settings with the directory store',
      argv: ['--log-s3-bucket=', '--log-s3-endpoint='],
      env: {},
      want: { kind: 'directory' },
    },
    {
      name: 'an older bucket name with capitals and underscores is taken',
      argv: ['--log-store=s3', '--log-s3-bucket=Legacy_Logs'],
      env: {},
      want: { kind: 's3', bucket: 'Legacy_Logs' },
    },
  ])('$name', ({ argv, env, want }) => {
    expect(parseConfig(argv, env).logStore).toEqual(expect.objectContaining(want));
  });

  it.each([
    {
      name: 'an unknown store',
      argv: ['--log-store=gcs'],
      message: 'log-store must be one of directory, s3, not "gcs"',
    },
    {
      name: 'the S3 store without a bucket',
      argv: ['--log-store=s3'],
      message: 'log-s3-bucket is required with log-store s3',
    },
    {
      name: 'a bucket named while the store is the directory',
      argv: ['--log-s3-bucket=logs'],
      message:
        'log-s3-bucket applies to the S3 log store only: set log-store to s3 as well, or leave log-s3-bucket out',
    },
    {
      name: 'an endpoint named while the store is the directory',
      argv: [],
      env: { KUBEDAG_LOG_S3_ENDPOINT: 'http://minio:9000' },
      message: 'log-s3-endpoint applies to the S3 log store only',
    },
    {
      name: 'a log directory with the S3 store',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-dir=/data'],
      message: 'log-dir applies to the directory log store only: leave it out with log-store s3',
    },
    {
      name: 'a bucket name with a slash',
      argv: ['--log-store=s3', '--log-s3-bucket=logs/kubedag'],
      message:
        'log-s3-bucket must be a bucket name (3 to 255 letters, digits, dots, hyphens or underscores), not "logs/kubedag"',
    },
    {
      name: 'a bucket name of two letters',
      argv: ['--log-store=s3', '--log-s3-bucket=ab'],
      message: 'log-s3-bucket must be a bucket name',
    },
    {
      name: 'a prefix with a .. folder',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-prefix=a/../b'],
      message: 'log-s3-prefix must be folder names separated by single slashes, without . or .., not "a/../b"',
    },
    {
      name: 'a prefix with a double slash',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-prefix=a//b'],
      message: 'log-s3-prefix must be folder names separated by single slashes',
    },
    {
      name: 'an endpoint that is no URL',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-endpoint=minio:9000'],
      message: 'log-s3-endpoint must be an http or https URL such as https://s3.example.com, not "minio:9000"',
    },
    {
      name: 'an endpoint with a path',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-endpoint=http://minio:9000/logs'],
      message:
        'log-s3-endpoint must be a server\'s URL without a path or query (the bucket is log-s3-bucket), not "http://minio:9000/logs"',
    },
    {
      name: 'an endpoint with credentials in it',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-endpoint=http://key:secret@minio:9000'],
      message: 'log-s3-endpoint must not hold credentials',
    },
    {
      name: 'a region with a space',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-region=eu west'],
      message: 'log-s3-region must be a region name such as eu-west-1, not "eu west"',
    },
    {
      name: 'a path style that is neither true nor false',
      argv: ['--log-store=s3', '--log-s3-bucket=logs', '--log-s3-force-path-style=sometimes'],
      message: 'log-s3-force-path-style must be true or false, not "sometimes"',
    },
  ])('refuses $name', ({ argv, env, message }) => {
    expect(() => parseConfig(argv, env ?? {})).toThrow(message);
  });
});
