/**
 * A real S3-compatible server on loopback for tests of the S3 log store: MinIO (cluster/minio.ts
 * builds it) on a free port with a fresh data folder and its own root credentials, a bucket
 * made for the test, and the AWS variables an operator process needs to reach it.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { ensureMinio } from './minio.ts';
import { freePort } from './processes.ts';

export interface S3Server {
  /** http://127.0.0.1:<port> */
  readonly endpoint: string;
  readonly bucket: string;
  /** AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION for a client of this server. */
  readonly env: Readonly<Record<string, string>>;
  /** A client of the server with those credentials (path-style addressing). */
  readonly client: S3Client;
  /** Operator flags for this server's bucket. */
  readonly operatorFlags: (prefix?: string) => string[];
  readonly output: () => string;
  stop(): Promise<void>;
}

/** How long a first build of MinIO may take on a busy machine (tests give their beforeAll this). */
export const S3_SERVER_BUILD_MS = 900_000;

export async function startS3Server(bucket = 'kubedag-logs'): Promise<S3Server> {
  const binary = await ensureMinio();
  const [port, consolePort] = [await freePort(), await freePort()];
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-minio-'));
  const env = {
    AWS_ACCESS_KEY_ID: 'kubedag-test',
    AWS_SECRET_ACCESS_KEY: 'kubedag-test-secret',
    AWS_REGION: 'us-east-1',
  };
  const child = spawn(
    binary,
    [
      'server',
      dir,
      '--quiet',
      '--address',
      `127.0.0.1:${String(port)}`,
      '--console-address',
      `127.0.0.1:${String(consolePort)}`,
    ],
    {
      env: {
        ...process.env,
        MINIO_ROOT_USER: env.AWS_ACCESS_KEY_ID,
        MINIO_ROOT_PASSWORD: env.AWS_SECRET_ACCESS_KEY,
        MINIO_BROWSER: 'off',
        MINIO_UPDATE: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const endpoint = `http://127.0.0.1:${String(port)}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`MinIO exited:\n${output}`);
    if (
      await fetch(`${endpoint}/minio/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) throw new Error(`MinIO did not answer within 30 s:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const client = new S3Client({
    endpoint,
    region: env.AWS_REGION,
    forcePathStyle: true,
    credentials: { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY },
  });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return {
    endpoint,
    bucket,
    env,
    client,
    operatorFlags: (prefix = '') => [
      '--log-store=s3',
      `--log-s3-bucket=${bucket}`,
      `--log-s3-endpoint=${endpoint}`,
      '--log-s3-force-path-style=true',
      ...(prefix === '' ? [] : [`--log-s3-prefix=${prefix}`]),
    ],
    output: () => output,
    stop: async () => {
      client.destroy();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
