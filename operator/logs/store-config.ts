/**
 * Which log store the operator uses, from flags and `KUBEDAG_*` variables (flags win): a
 * directory (the default) or an S3-compatible bucket. Every setting belongs to one store, and
 * one given for the other is refused at start rather than ignored: a bucket named while the
 * store is still the directory would otherwise send logs where nobody looks for them.
 * Credentials are not settings here: the S3 client reads them the standard AWS way
 * (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a web identity token, a profile, the instance's role).
 */
import { setting } from '../../core/settings.ts';

export interface DirectoryStoreConfig {
  readonly kind: 'directory';
  readonly dir: string;
}

export interface S3StoreConfig {
  readonly kind: 's3';
  readonly bucket: string;
  /** Empty, or `/`-separated parts ending in `/`: every key starts with it. */
  readonly prefix: string;
  /** An S3-compatible server's URL; absent: AWS S3 of the region. */
  readonly endpoint?: string;
  /** Absent: the SDK's own (AWS_REGION, a profile). */
  readonly region?: string;
  /** `endpoint/bucket/key` instead of `bucket.endpoint/key` (most S3-compatible servers need it). */
  readonly forcePathStyle: boolean;
}

export type LogStoreConfig = DirectoryStoreConfig | S3StoreConfig;

export const DEFAULT_LOG_DIR = '/var/lib/kubedag/logs';

function bucketName(text: string): string {
  // AWS's rules are stricter for new buckets; older buckets and other servers allow capitals and underscores.
  if (/^[A-Za-z0-9._-]{3,255}$/.test(text)) return text;
  throw new Error(
    `log-s3-bucket must be a bucket name (3 to 255 letters, digits, dots, hyphens or underscores), not "${text}"`,
  );
}

/** `logs/kubedag`, `/logs/kubedag/` and `logs/kubedag/` are one prefix, `logs/kubedag/`. */
function keyPrefix(text: string): string {
  const trimmed = text.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') return '';
  if (trimmed.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new Error(`log-s3-prefix must be folder names separated by single slashes, without . or .., not "${text}"`);
  }
  return `${trimmed}/`;
}

function endpointUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`log-s3-endpoint must be an http or https URL such as https://s3.example.com, not "${text}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`log-s3-endpoint must be an http or https URL such as https://s3.example.com, not "${text}"`);
  if (url.username !== '' || url.password !== '')
    throw new Error(
      'log-s3-endpoint must not hold credentials: the S3 client reads them from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the rest of the AWS credential chain',
    );
  // A path would be taken for part of a key by some servers and dropped by others.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new Error(
      `log-s3-endpoint must be a server's URL without a path or query (the bucket is log-s3-bucket), not "${text}"`,
    );
  return url.origin;
}

function regionName(text: string): string {
  if (/^[A-Za-z0-9_-]+$/.test(text)) return text;
  throw new Error(`log-s3-region must be a region name such as eu-west-1, not "${text}"`);
}

function truth(text: string, name: string): boolean {
  const value = { true: true, yes: true, '1': true, false: false, no: false, '0': false }[text.toLowerCase()];
  if (value === undefined) throw new Error(`${name} must be true or false, not "${text}"`);
  return value;
}

/** Trimmed; blank is unset, as an empty value is (core/settings.ts). */
const trimmed = (text: string): string | undefined => (text.trim() === '' ? undefined : text.trim());

/**
 * The store's settings (core/settings.ts). Each is read as text, and checked by logStoreFrom
 * once the store is known: which settings apply depends on it.
 */
export const LOG_STORE_SETTINGS = {
  logStore: setting<string | undefined>({
    flag: 'log-store',
    group: 'Log store',
    values: ['directory', 's3'],
    default: undefined,
    defaultText: 'directory',
    description:
      'Where step logs are archived: a directory, or an S3-compatible bucket (credentials the standard AWS way: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, web identity, a profile).',
    read: trimmed,
  }),
  logDir: setting<string | undefined>({
    flag: 'log-dir',
    group: 'Log store',
    value: 'DIR',
    default: undefined,
    defaultText: DEFAULT_LOG_DIR,
    description: 'The directory of the directory store.',
    read: trimmed,
  }),
  logS3Bucket: setting<string | undefined>({
    flag: 'log-s3-bucket',
    group: 'Log store',
    value: 'BUCKET',
    default: undefined,
    description: 'The bucket of the S3 store (required with it).',
    read: trimmed,
  }),
  logS3Prefix: setting<string | undefined>({
    flag: 'log-s3-prefix',
    group: 'Log store',
    value: 'PREFIX',
    default: undefined,
    description: 'Folders every key of the S3 store starts with.',
    read: trimmed,
  }),
  logS3Endpoint: setting<string | undefined>({
    flag: 'log-s3-endpoint',
    group: 'Log store',
    value: 'URL',
    default: undefined,
    defaultText: 'AWS S3 of the region',
    description: "An S3-compatible server's URL, without a path.",
    read: trimmed,
  }),
  logS3Region: setting<string | undefined>({
    flag: 'log-s3-region',
    group: 'Log store',
    value: 'REGION',
    default: undefined,
    defaultText: "the SDK's own (AWS_REGION, a profile)",
    description: 'The region of the S3 store.',
    read: trimmed,
  }),
  logS3ForcePathStyle: setting<string | undefined>({
    flag: 'log-s3-force-path-style',
    group: 'Log store',
    value: 'true|false',
    default: undefined,
    defaultText: 'false',
    description: 'endpoint/bucket/key instead of bucket.endpoint/key (most S3-compatible servers need it).',
    read: trimmed,
  }),
};

export type LogStoreValues = { readonly [K in keyof typeof LOG_STORE_SETTINGS]: string | undefined };

/** The settings of the S3 store only. */
const S3_SETTINGS = ['logS3Bucket', 'logS3Prefix', 'logS3Endpoint', 'logS3Region', 'logS3ForcePathStyle'] as const;

export function logStoreFrom(values: LogStoreValues): LogStoreConfig {
  const kind = values.logStore ?? 'directory';
  if (kind === 'directory') {
    const stray = S3_SETTINGS.find((key) => values[key] !== undefined);
    const name = stray === undefined ? undefined : LOG_STORE_SETTINGS[stray].name;
    if (name !== undefined)
      throw new Error(`${name} applies to the S3 log store only: set log-store to s3 as well, or leave ${name} out`);
    return { kind, dir: values.logDir ?? DEFAULT_LOG_DIR };
  }
  if (kind !== 's3') throw new Error(`log-store must be one of directory, s3, not "${kind}"`);
  if (values.logDir !== undefined)
    throw new Error('log-dir applies to the directory log store only: leave it out with log-store s3');
  const bucket = values.logS3Bucket;
  if (bucket === undefined) throw new Error('log-s3-bucket is required with log-store s3');
  const endpoint = values.logS3Endpoint;
  const region = values.logS3Region;
  const forcePathStyle = values.logS3ForcePathStyle;
  return {
    kind,
    bucket: bucketName(bucket),
    prefix: keyPrefix(values.logS3Prefix ?? ''),
    ...(endpoint === undefined ? {} : { endpoint: endpointUrl(endpoint) }),
    ...(region === undefined ? {} : { region: regionName(region) }),
    forcePathStyle: forcePathStyle === undefined ? false : truth(forcePathStyle, 'log-s3-force-path-style'),
  };
}
