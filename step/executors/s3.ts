/**
 * Dagu 2.x's s3 executor, as v2.15.1 runs it (internal/runtime/builtin/s3/): upload a file of
 * the step's file system, download an object to one, list a bucket, delete an object or every
 * object under a prefix, and write what was done as JSON (s3-result.ts). Settings: the DAG's
 * `s3` block under the step's own (s3-settings.ts). Credentials go to the AWS client only:
 * results and errors never hold them. Failures end the step with Dagu's exit code of their
 * kind (2 configuration, 3 source missing, 8 upload, 9 download, 10 list, 11 delete, 12 stop).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type ListObjectsV2CommandInput,
  type PutObjectCommandInput,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import type { StepIO } from '../io.ts';
import { S3_EXIT, S3Failure, s3Settings, type S3Settings } from './s3-settings.ts';
import { bareEtag, contentTypeOf, goDurationText, goJson, listObject, type ListObject } from './s3-result.ts';

interface Context {
  readonly client: S3Client;
  readonly settings: S3Settings;
  readonly io: StepIO;
  readonly started: number;
}

const took = (context: Context): string => goDurationText(Date.now() - context.started);
const uri = (settings: S3Settings): string => `s3://${settings.bucket}/${settings.key}`;

/** What the AWS client said, without the request's details (never a credential: the SDK does not put them in errors). */
function describe(error: unknown): string {
  const { name, message } = error as Error;
  return name !== '' && name !== 'Error' && !message.startsWith(name) ? `${name}: ${message}` : message;
}

async function upload(context: Context): Promise<void> {
  const { settings, client, io } = context;
  const stats = await fs.stat(settings.source).catch((error: unknown) => {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new S3Failure(
      `s3: source not found: ${missing ? `source file "${settings.source}" does not exist` : `cannot access source file "${settings.source}": ${describe(error)}`}`,
      S3_EXIT.sourceNotFound,
    );
  });
  if (stats.isDirectory())
    throw new S3Failure(
      `s3: configuration error: source "${settings.source}" is a directory, not a file`,
      S3_EXIT.config,
    );
  const contentType = contentTypeOf(settings.contentType, settings.source);
  const tags = Object.entries(settings.tags);
  const params: PutObjectCommandInput = {
    Bucket: settings.bucket,
    Key: settings.key,
    Body: createReadStream(settings.source),
    ContentType: contentType,
    ...(Object.keys(settings.metadata).length === 0 ? {} : { Metadata: { ...settings.metadata } }),
    ...(settings.storageClass === '' ? {} : { StorageClass: settings.storageClass as never }),
    ...(tags.length === 0 ? {} : { Tagging: new URLSearchParams(tags).toString() }),
    ...(settings.acl === '' ? {} : { ACL: settings.acl as never }),
    ...(settings.sse === '' ? {} : { ServerSideEncryption: settings.sse as never }),
    ...(settings.sseKmsKeyId === '' ? {} : { SSEKMSKeyId: settings.sseKmsKeyId }),
  };
  const transfer = new Upload({
    client,
    params,
    partSize: settings.partSize,
    queueSize: settings.concurrency,
    leavePartsOnError: false,
  });
  const abort = (): void => void transfer.abort();
  io.signal.addEventListener('abort', abort, { once: true });
  const output = await transfer.done().catch((error: unknown) => {
    throw new S3Failure(`s3: upload failed: ${describe(error)}`, S3_EXIT.upload, { cause: error });
  });
  io.signal.removeEventListener('abort', abort);
  io.stdout.write(
    goJson({
      operation: 'upload',
      success: true,
      bucket: settings.bucket,
      key: settings.key,
      uri: uri(settings),
      ...(bareEtag(output.ETag) === '' ? {} : { etag: bareEtag(output.ETag) }),
      size: stats.size,
      contentType,
      ...(settings.storageClass === '' ? {} : { storageClass: settings.storageClass }),
      duration: took(context),
    }),
  );
}

/** The object is written to a temporary file beside the destination and renamed over it: no half file is left. */
async function download(context: Context): Promise<void> {
  const { settings, client, io } = context;
  const failed = (what: string, error: unknown): S3Failure =>
    new S3Failure(`s3: download failed: ${what}${describe(error)}`, S3_EXIT.download, { cause: error });
  await fs.mkdir(dirname(settings.destination), { recursive: true, mode: 0o755 }).catch((error: unknown) => {
    throw failed('failed to create destination directory: ', error);
  });
  const output = await client
    .send(new GetObjectCommand({ Bucket: settings.bucket, Key: settings.key }), { abortSignal: io.signal })
    .catch((error: unknown) => {
      throw failed('', error);
    });
  const temporary = join(dirname(settings.destination), `.${basename(settings.destination)}.${String(process.pid)}`);
  let size = 0;
  try {
    const body = output.Body as Readable;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    await pipeline(body, createWriteStream(temporary, { mode: 0o600 }), { signal: io.signal }).catch(
      (error: unknown) => {
        throw failed('failed to write destination file: ', error);
      },
    );
    await fs.rename(temporary, settings.destination).catch((error: unknown) => {
      throw failed('failed to move file to destination: ', error);
    });
  } finally {
    await fs.rm(temporary, { force: true });
  }
  const etag = bareEtag(output.ETag);
  io.stdout.write(
    goJson({
      operation: 'download',
      success: true,
      bucket: settings.bucket,
      key: settings.key,
      uri: uri(settings),
      destination: settings.destination,
      size,
      ...(output.ContentType === undefined || output.ContentType === '' ? {} : { contentType: output.ContentType }),
      ...(etag === '' ? {} : { etag }),
      duration: took(context),
    }),
  );
}

/**
 * Objects under the prefix, page by page, each page's objects and common prefixes sorted by
 * key, until `limit` (0: all) have been visited. Not recursive: grouped by the delimiter (`/`).
 */
async function visitObjects(
  context: Context,
  recursive: boolean,
  limit: number,
  visit: (object: ListObject) => Promise<void>,
): Promise<void> {
  const { settings, client, io } = context;
  const input: ListObjectsV2CommandInput = {
    Bucket: settings.bucket,
    Prefix: settings.prefix,
    ...(recursive ? {} : { Delimiter: settings.delimiter === '' ? '/' : settings.delimiter }),
    ...(limit > 0 && limit < 1000 ? { MaxKeys: limit } : {}),
  };
  let count = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ ...input, ContinuationToken: token }), {
      abortSignal: io.signal,
    });
    const objects = [
      ...(page.Contents ?? []).map(listObject),
      ...(page.CommonPrefixes ?? []).map((prefix) => listObject({ Key: prefix.Prefix })),
    ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const object of objects) {
      if (limit > 0 && count >= limit) return;
      await visit(object);
      count++;
    }
    token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
  } while (token !== undefined && (limit <= 0 || count < limit));
}

async function list(context: Context): Promise<void> {
  const { settings, io } = context;
  const objects: ListObject[] = [];
  const jsonl = settings.outputFormat === 'jsonl';
  await visitObjects(context, settings.recursive, settings.maxKeys, async (object) => {
    if (jsonl) io.stdout.write(goJson(object));
    else objects.push(object);
    return Promise.resolve();
  }).catch((error: unknown) => {
    throw new S3Failure(`s3: list failed: ${describe(error)}`, S3_EXIT.list, { cause: error });
  });
  if (jsonl) return;
  io.stdout.write(
    goJson({
      operation: 'list',
      success: true,
      bucket: settings.bucket,
      ...(settings.prefix === '' ? {} : { prefix: settings.prefix }),
      // Go encodes an empty (nil) slice as null, and Dagu's result holds one when nothing matched.
      objects: objects.length === 0 ? null : objects,
      totalCount: objects.length,
      duration: took(context),
    }),
  );
}

async function deleteOne(context: Context, key: string): Promise<void> {
  await context.client.send(new DeleteObjectCommand({ Bucket: context.settings.bucket, Key: key }), {
    abortSignal: context.io.signal,
  });
}

async function remove(context: Context): Promise<void> {
  const { settings, io } = context;
  if (settings.key !== '') {
    await deleteOne(context, settings.key).catch((error: unknown) => {
      throw new S3Failure(`s3: delete failed: ${describe(error)}`, S3_EXIT.delete, { cause: error });
    });
    if (!settings.quiet)
      io.stdout.write(
        goJson({
          operation: 'delete',
          success: true,
          bucket: settings.bucket,
          key: settings.key,
          deletedCount: 1,
          deletedKeys: [settings.key],
          duration: took(context),
        }),
      );
    return;
  }
  await removePrefix(context);
}

/** Every object under the prefix, one request each (as Dagu); failures are counted, and fail the step at the end. */
async function removePrefix(context: Context): Promise<void> {
  const { settings, io } = context;
  const deleted: string[] = [];
  const errors: string[] = [];
  await visitObjects(context, true, 0, async (object) => {
    await deleteOne(context, object.key).then(
      () => deleted.push(object.key),
      (error: unknown) => errors.push(`${object.key}: ${describe(error)}`),
    );
  }).catch((error: unknown) => {
    throw new S3Failure(`s3: delete failed: failed to list objects: ${describe(error)}`, S3_EXIT.delete, {
      cause: error,
    });
  });
  if (!settings.quiet || errors.length > 0)
    io.stdout.write(
      goJson({
        operation: 'delete',
        success: errors.length === 0,
        bucket: settings.bucket,
        prefix: settings.prefix,
        deletedCount: deleted.length,
        ...(deleted.length === 0 || deleted.length > 100 ? {} : { deletedKeys: deleted }),
        ...(errors.length === 0 ? {} : { errorCount: errors.length, errors }),
        duration: took(context),
      }),
    );
  if (errors.length > 0)
    throw new S3Failure(
      `s3: delete failed: ${String(errors.length)} of ${String(deleted.length + errors.length)} objects failed to delete`,
      S3_EXIT.delete,
    );
}

const OPERATIONS: Readonly<Record<S3Settings['operation'], (context: Context) => Promise<void>>> = {
  upload,
  download,
  list,
  delete: remove,
};

export function s3Client(settings: S3Settings): S3Client {
  const { connection } = settings;
  return new S3Client({
    region: connection.region,
    forcePathStyle: connection.forcePathStyle,
    ...(connection.endpoint === undefined ? {} : { endpoint: connection.endpoint }),
    ...(connection.credentials === undefined ? {} : { credentials: connection.credentials }),
    ...(connection.profile === undefined ? {} : { profile: connection.profile }),
  });
}

export async function runS3(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const started = Date.now();
  let client: S3Client | undefined;
  try {
    const settings = s3Settings(spec, io.env, io.cwd);
    client = s3Client(settings);
    io.signal.throwIfAborted();
    await OPERATIONS[settings.operation]({ client, settings, io, started });
    return 0;
  } catch (error) {
    if (io.signal.aborted) throw error;
    if (!(error instanceof S3Failure)) throw error;
    io.stderr.write(`kubedag-step: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
    return error.exitCode;
  } finally {
    client?.destroy();
  }
}
