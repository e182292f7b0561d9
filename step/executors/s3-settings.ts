/**
 * The settings of Dagu's s3 executor (`s3.upload`, `s3.download`, `s3.list`, `s3.delete`), read
 * as v2.15.1 reads them (internal/runtime/builtin/s3/config.go): the DAG's `s3` block first,
 * the step's settings over it key by key, weakly typed, unknown keys ignored; then Dagu's
 * checks per operation with its messages (`s3: configuration error: bucket is required`).
 * Pure. Relative paths resolve against the step's working directory.
 */
import { BUILTIN_KEYS, operationOf } from '../../core/dag/builtin-executors.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { boolSetting, intSetting, mapSetting, SettingError, textSetting } from '../settings.ts';
import { resolvePath } from './file-settings.ts';

export interface S3Connection {
  readonly region: string;
  /** Absent: AWS's own endpoint for the region. */
  readonly endpoint?: string;
  /** Both or neither: without them the AWS credential chain (environment, profile, web identity...) is used. */
  readonly credentials?: {
    readonly accessKeyId: string;
    readonly secretAccessKey: string;
    readonly sessionToken?: string;
  };
  readonly profile?: string;
  readonly forcePathStyle: boolean;
}

export interface S3Settings {
  readonly operation: 'upload' | 'download' | 'list' | 'delete';
  readonly connection: S3Connection;
  readonly bucket: string;
  readonly key: string;
  /** Absolute paths in the step's file system. */
  readonly source: string;
  readonly destination: string;
  readonly contentType: string;
  readonly storageClass: string;
  readonly metadata: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly sse: string;
  readonly sseKmsKeyId: string;
  readonly acl: string;
  /** Bytes. */
  readonly partSize: number;
  readonly concurrency: number;
  readonly prefix: string;
  readonly delimiter: string;
  readonly maxKeys: number;
  readonly recursive: boolean;
  readonly outputFormat: 'json' | 'jsonl';
  readonly quiet: boolean;
}

/** A failure of an s3 step with the exit code Dagu gives its kind (errors.go's exitCodeFor). */
export class S3Failure extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number, options?: ErrorOptions) {
    super(message, options);
    this.exitCode = exitCode;
  }
}

export const S3_EXIT = {
  config: 2,
  sourceNotFound: 3,
  upload: 8,
  download: 9,
  list: 10,
  delete: 11,
  cancelled: 12,
} as const;

const configError = (message: string): S3Failure =>
  new S3Failure(`s3: configuration error: ${message}`, S3_EXIT.config);

export const STORAGE_CLASSES = [
  'STANDARD',
  'REDUCED_REDUNDANCY',
  'STANDARD_IA',
  'ONEZONE_IA',
  'INTELLIGENT_TIERING',
  'GLACIER',
  'DEEP_ARCHIVE',
  'GLACIER_IR',
];
export const CANNED_ACLS = [
  'private',
  'public-read',
  'public-read-write',
  'authenticated-read',
  'aws-exec-read',
  'bucket-owner-read',
  'bucket-owner-full-control',
];

const OPERATIONS = ['upload', 'download', 'list', 'delete'] as const;

const oneOf = (allowed: readonly string[], value: string): string | undefined =>
  allowed.find((item) => item.toLowerCase() === value.toLowerCase());

/** Dagu's endpointURL: a URL as written, else https:// before it (http:// with disable_ssl). */
export function endpointUrl(endpoint: string, disableSsl: boolean): string | undefined {
  if (endpoint === '') return undefined;
  if (/^https?:\/\//.test(endpoint)) return endpoint;
  return `${disableSsl ? 'http' : 'https'}://${endpoint}`;
}

/** The step's settings over the DAG's block: only the block's own keys come from it. */
function merged(spec: ExecutorSpec): Readonly<Record<string, unknown>> {
  const known = (map: Readonly<Record<string, unknown>>): Record<string, unknown> =>
    Object.fromEntries(Object.entries(map).filter(([key]) => BUILTIN_KEYS.s3.includes(key)));
  return { ...known(spec.s3 ?? {}), ...known(spec.config) };
}

/** Dagu's ValidateForOperation, in its order. */
function checkOperation(settings: Omit<S3Settings, 'connection'>): void {
  const { operation } = settings;
  if (settings.bucket === '') throw configError('bucket is required');
  if (operation === 'upload' && settings.source === '') throw configError('source is required for upload');
  if ((operation === 'upload' || operation === 'download') && settings.key === '')
    throw configError(`key is required for ${operation}`);
  if (operation === 'download' && settings.destination === '')
    throw configError('destination is required for download');
  if (operation === 'delete' && settings.key === '' && settings.prefix === '')
    throw configError('key or prefix is required for delete');
}

function checkOptions(read: (key: string) => string): { storageClass: string; acl: string } {
  const rawClass = read('storage_class');
  const storageClass = rawClass === '' ? '' : oneOf(STORAGE_CLASSES, rawClass);
  if (storageClass === undefined) throw configError(`invalid storage class "${rawClass}"`);
  const format = read('output_format');
  if (format !== '' && format !== 'json' && format !== 'jsonl')
    throw configError("output_format must be 'json' or 'jsonl'");
  const sse = read('sse');
  if (sse !== '' && oneOf(['AES256', 'aws:kms'], sse) === undefined)
    throw configError("sse must be 'AES256' or 'aws:kms'");
  if (sse.toLowerCase() === 'aws:kms' && read('sse_kms_key_id') === '')
    throw configError("sse_kms_key_id is required when sse is 'aws:kms'");
  const rawAcl = read('acl');
  const acl = rawAcl === '' ? '' : oneOf(CANNED_ACLS, rawAcl);
  if (acl === undefined) throw configError(`invalid acl "${rawAcl}"`);
  return { storageClass, acl };
}

function connectionOf(read: (key: string) => string, flag: (key: string) => boolean): S3Connection {
  const [accessKeyId, secretAccessKey, sessionToken] = [
    read('access_key_id'),
    read('secret_access_key'),
    read('session_token'),
  ];
  const endpoint = endpointUrl(read('endpoint'), flag('disable_ssl'));
  return {
    region: read('region') === '' ? 'us-east-1' : read('region'),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(accessKeyId !== '' && secretAccessKey !== ''
      ? { credentials: { accessKeyId, secretAccessKey, ...(sessionToken === '' ? {} : { sessionToken }) } }
      : {}),
    ...(read('profile') === '' ? {} : { profile: read('profile') }),
    forcePathStyle: flag('force_path_style'),
  };
}

export function s3Settings(spec: ExecutorSpec, env: Readonly<Record<string, string>>, cwd: string): S3Settings {
  const operation = OPERATIONS.find((name) => name === operationOf(spec.command));
  if (operationOf(spec.command) === '') throw configError('command must specify s3 operation');
  if (operation === undefined)
    throw configError(
      `unsupported s3 operation "${operationOf(spec.command)}" (valid: upload, download, list, delete)`,
    );
  const config = merged(spec);
  try {
    const read = (key: string): string => textSetting(config, key, env) ?? '';
    const flag = (key: string): boolean => boolSetting(config, key, env);
    const number = (key: string, fallback: number): number => intSetting(config, key, env) || fallback;
    const path = (key: string): string => (read(key) === '' ? '' : resolvePath(read(key), cwd, env.HOME));
    const base = {
      operation,
      bucket: read('bucket'),
      key: read('key'),
      source: path('source'),
      destination: path('destination'),
      contentType: read('content_type'),
      metadata: mapSetting(config, 'metadata', env),
      tags: mapSetting(config, 'tags', env),
      sse: read('sse'),
      sseKmsKeyId: read('sse_kms_key_id'),
      partSize: number('part_size', 10),
      concurrency: number('concurrency', 5),
      prefix: read('prefix'),
      delimiter: read('delimiter'),
      maxKeys: number('max_keys', 1000),
      recursive: flag('recursive'),
      outputFormat: read('output_format') === 'jsonl' ? ('jsonl' as const) : ('json' as const),
      quiet: flag('quiet'),
    };
    checkOperation({ ...base, storageClass: '', acl: '' });
    const options = checkOptions(read);
    if (base.concurrency < 0) throw configError('concurrency must be >= 0');
    if (base.partSize < 5) throw configError('part_size must be >= 5 MB');
    if (base.maxKeys < 0) throw configError('max_keys must be >= 0');
    return { ...base, ...options, partSize: base.partSize * 1024 * 1024, connection: connectionOf(read, flag) };
  } catch (error) {
    // Dagu's decode errors are not configuration errors of an operation: exit 1, its wording.
    if (error instanceof SettingError) throw new S3Failure(`invalid s3 configuration: ${error.message}`, 1);
    throw error;
  }
}
