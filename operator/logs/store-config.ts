/**
 * Which log store the operator uses, from flags and `KUBEDAG_*` variables (flags win): a
 * directory (the default) or an S3-compatible bucket. Every setting belongs to one store, and
 * one given for the other is refused at start rather than ignored: a bucket named while the
 * store is still the directory would otherwise send logs where nobody looks for them.
 * Credentials are not settings here: the S3 client reads them the standard AWS way
 * (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a web identity token, a profile, the instance's role).
 */

export const LOG_STORE_FLAGS = {
  'log-store': { type: 'string' },
  'log-dir': { type: 'string' },
  'log-s3-bucket': { type: 'string' },
  'log-s3-prefix': { type: 'string' },
  'log-s3-endpoint': { type: 'string' },
  'log-s3-region': { type: 'string' },
  'log-s3-force-path-style': { type: 'string' },
} as const;

export type LogStoreFlags = { readonly [K in keyof typeof LOG_STORE_FLAGS]?: string };

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

/** Flag names of the S3 settings and the variable that stands for each. */
const S3_SETTINGS = ['log-s3-bucket', 'log-s3-prefix', 'log-s3-endpoint', 'log-s3-region', 'log-s3-force-path-style'] as const;

const variable = (flag: string): string => `KUBEDAG_${flag.toUpperCase().replaceAll('-', '_')}`;

function bucketName(text: string): string {
  // AWS's rules are stricter for new buckets; older buckets and other servers allow capitals and underscores.
  if (/^[A-Za-z0-9._-]{3,255}$/.test(text)) return text;
  throw new Error(`log-s3-bucket must be a bucket name (3 to 255 letters, digits, dots, hyphens or underscores), not "${text}"`);
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
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`log-s3-endpoint must be an http or https URL such as https://s3.example.com, not "${text}"`);
  if (url.username !== '' || url.password !== '') throw new Error('log-s3-endpoint must not hold credentials: the S3 client reads them from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or the rest of the AWS credential chain');
  // A path would be taken for part of a key by some servers and dropped by others.
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '') throw new Error(`log-s3-endpoint must be a server's URL without a path or query (the bucket is log-s3-bucket), not "${text}"`);
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

export function logStoreFrom(flags: LogStoreFlags, env: Readonly<Record<string, string | undefined>>): LogStoreConfig {
  // An empty value is no value: a chart or shell that passes `--log-s3-endpoint=` sets nothing.
  const pick = (flag: keyof typeof LOG_STORE_FLAGS): string | undefined => {
    const value = flags[flag] ?? env[variable(flag)];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const kind = pick('log-store') ?? 'directory';
  if (kind === 'directory') {
    const stray = S3_SETTINGS.find((flag) => pick(flag) !== undefined);
    if (stray !== undefined) throw new Error(`${stray} applies to the S3 log store only: set log-store to s3 as well, or leave ${stray} out`);
    return { kind, dir: pick('log-dir') ?? DEFAULT_LOG_DIR };
  }
  if (kind !== 's3') throw new Error(`log-store must be one of directory, s3, not "${kind}"`);
  if (pick('log-dir') !== undefined) throw new Error('log-dir applies to the directory log store only: leave it out with log-store s3');
  const bucket = pick('log-s3-bucket');
  if (bucket === undefined) throw new Error('log-s3-bucket is required with log-store s3');
  const endpoint = pick('log-s3-endpoint');
  const region = pick('log-s3-region');
  const forcePathStyle = pick('log-s3-force-path-style');
  return {
    kind,
    bucket: bucketName(bucket),
    prefix: keyPrefix(pick('log-s3-prefix') ?? ''),
    ...(endpoint === undefined ? {} : { endpoint: endpointUrl(endpoint) }),
    ...(region === undefined ? {} : { region: regionName(region) }),
    forcePathStyle: forcePathStyle === undefined ? false : truth(forcePathStyle, 'log-s3-force-path-style'),
  };
}
