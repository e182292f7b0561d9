/**
 * The log store in an S3-compatible bucket, which every operator replica reads and writes
 * without a shared volume. Keys are keys.ts's paths under the configured prefix. An attempt's
 * stderr is written after its stdout and is what `exists` looks for: a writer that dies
 * between the two leaves an attempt that is not archived, and the next archiver writes both
 * again (a PUT replaces an object whole, so writing twice is harmless). The AWS SDK is
 * imported when a store is opened, never at start: the directory store's operator does not
 * load it (the operator's bundle leaves it out, docs/decisions/2026-11-24-s3-logs.md).
 */
import type * as S3 from '@aws-sdk/client-s3';
import {
  attemptKey,
  isArtifactKey,
  keptStreams,
  runKeyPrefix,
  type AttemptLogs,
  type KeptStream,
  type LogRef,
} from './keys.ts';
import type { S3StoreConfig } from './store-config.ts';
import type { LogStore } from './store.ts';

export interface S3StoreOptions {
  /** Keys listed per page and deleted per request when a run's logs go (S3 allows 1,000). */
  readonly batchSize?: number;
}

type Sdk = typeof S3;

/** The HTTP status of an error S3 answered (the SDK's errors carry `$metadata`). */
function statusOf(error: unknown): number | undefined {
  const metadata = (error as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata;
  return typeof metadata?.httpStatusCode === 'number' ? metadata.httpStatusCode : undefined;
}

/** What S3 said, in words: HEAD answers have no body, so their status stands for the message. */
export function describeS3Error(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = statusOf(error);
  const byStatus: Record<number, string> = {
    301: 'the bucket is in another region (set log-s3-region)',
    403: 'access denied (check the credentials and the bucket policy)',
    404: 'not found (does the bucket exist?)',
  };
  const message =
    error.message === '' || error.message === 'UnknownError'
      ? status === undefined
        ? ''
        : (byStatus[status] ?? `HTTP ${String(status)}`)
      : error.message;
  // The SDK names an error it could not read from the answer "Unknown", which says nothing.
  return [error.name === 'Error' || error.name === 'Unknown' ? '' : error.name, message]
    .filter((part) => part !== '')
    .join(': ');
}

const notFound = (error: unknown): boolean =>
  statusOf(error) === 404 || (error instanceof Error && (error.name === 'NoSuchKey' || error.name === 'NotFound'));

export class S3LogStore implements LogStore {
  private readonly sdk: Sdk;
  private readonly client: S3.S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly batchSize: number;

  /** Loads the SDK and makes the store's client (no request yet: `check` makes the first). */
  static async open(config: S3StoreConfig, options: S3StoreOptions = {}): Promise<S3LogStore> {
    return new S3LogStore(await import('@aws-sdk/client-s3'), config, options);
  }

  private constructor(sdk: Sdk, config: S3StoreConfig, options: S3StoreOptions) {
    const env = process.env;
    this.sdk = sdk;
    this.bucket = config.bucket;
    this.prefix = config.prefix;
    this.batchSize = options.batchSize ?? 1000;
    // An S3-compatible server rarely cares about the region, but signing needs one: without a
    // flag or an AWS variable, such a server gets us-east-1, as its own default usually is.
    const region =
      config.region ??
      (config.endpoint !== undefined && env.AWS_REGION === undefined && env.AWS_DEFAULT_REGION === undefined
        ? 'us-east-1'
        : undefined);
    this.client = new sdk.S3Client({
      ...(region === undefined ? {} : { region }),
      ...(config.endpoint === undefined ? {} : { endpoint: config.endpoint }),
      forcePathStyle: config.forcePathStyle,
      // The SDK's standard retries (throttling, 5xx, timeouts) with backoff; then the work
      // queue's own retry of the reconcile. A hung server costs each try at most 30 s.
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 5000, requestTimeout: 30_000, throwOnRequestTimeout: true },
      // Checksums only where S3 requires them (DeleteObjects): servers other than AWS's do not
      // all know the newer default ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private key(ref: LogRef, stream: KeptStream): string {
    return `${this.prefix}${attemptKey(ref, stream)}`;
  }

  /** Runs one request; its failure names the operation, the object and what S3 said. */
  private async call<T>(operation: string, key: string, request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw new Error(`S3 log store: ${operation} s3://${this.bucket}/${key} failed: ${describeS3Error(error)}`, {
        cause: error,
      });
    }
  }

  /** At start: the bucket is there and may be listed with these credentials, so that a wrong setting stops the operator, not its first archive. */
  async check(): Promise<void> {
    await this.call('listing', this.prefix, () =>
      this.client.send(new this.sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, MaxKeys: 1 })),
    );
  }

  async write(ref: LogRef, logs: AttemptLogs): Promise<void> {
    // stderr last: it is what `exists` looks for.
    for (const stream of keptStreams(logs)) {
      const key = this.key(ref, stream);
      const body = Buffer.from(logs[stream] ?? '', 'utf8');
      // The length given: the SDK cannot tell an empty body's and warns about it on every write.
      await this.call('writing', key, () =>
        this.client.send(
          new this.sdk.PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: body,
            ContentLength: body.length,
            ContentType: 'text/plain; charset=utf-8',
          }),
        ),
      );
    }
  }

  async exists(ref: LogRef): Promise<boolean> {
    const key = this.key(ref, 'stderr');
    try {
      await this.client.send(new this.sdk.HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw new Error(`S3 log store: looking up s3://${this.bucket}/${key} failed: ${describeS3Error(error)}`, {
        cause: error,
      });
    }
  }

  async read(ref: LogRef, stream: KeptStream): Promise<string | undefined> {
    const key = this.key(ref, stream);
    try {
      const object = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await object.Body?.transformToString('utf-8')) ?? '';
    } catch (error) {
      if (notFound(error)) return undefined;
      throw new Error(`S3 log store: reading s3://${this.bucket}/${key} failed: ${describeS3Error(error)}`, {
        cause: error,
      });
    }
  }

  /** The run's keys under its prefix, page by page. */
  private async runKeys(namespace: string, dagName: string, dagRunId: string): Promise<string[]> {
    const prefix = `${this.prefix}${runKeyPrefix(namespace, dagName, dagRunId)}`;
    const keys: string[] = [];
    await this.call('listing', prefix, async () => {
      for await (const page of this.sdk.paginateListObjectsV2(
        { client: this.client, pageSize: this.batchSize },
        { Bucket: this.bucket, Prefix: prefix },
      )) {
        for (const object of page.Contents ?? []) if (object.Key !== undefined) keys.push(object.Key);
      }
    });
    return keys;
  }

  async artifactManifests(namespace: string, dagName: string, dagRunId: string): Promise<string[]> {
    const keys = (await this.runKeys(namespace, dagName, dagRunId)).filter(isArtifactKey);
    return Promise.all(
      keys.map((key) =>
        this.call('reading', key, async () => {
          const object = await this.client.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
          return (await object.Body?.transformToString('utf-8')) ?? '';
        }),
      ),
    );
  }

  /** Lists the run's keys page by page, then deletes them in batches; a key S3 refuses to delete fails the whole removal, so retention tries again. */
  async removeRun(namespace: string, dagName: string, dagRunId: string): Promise<void> {
    const prefix = `${this.prefix}${runKeyPrefix(namespace, dagName, dagRunId)}`;
    const keys = await this.runKeys(namespace, dagName, dagRunId);
    for (let start = 0; start < keys.length; start += this.batchSize) {
      const batch = keys.slice(start, start + this.batchSize);
      const answer = await this.call('deleting under', prefix, () =>
        this.client.send(
          new this.sdk.DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        ),
      );
      const failed = answer.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new Error(
          `S3 log store: ${String(failed.length)} of ${String(batch.length)} objects under s3://${this.bucket}/${prefix} could not be deleted, first ${first?.Key ?? '?'}: ${first?.Code ?? ''} ${first?.Message ?? ''}`.trimEnd(),
        );
      }
    }
  }

  /** Closes the client's connections (tests; the operator keeps its store until it exits). */
  destroy(): void {
    this.client.destroy();
  }
}
