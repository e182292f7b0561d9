/**
 * MinIO, the S3-compatible server the S3 log store's tests run against, built from its Go
 * module (cluster/tools/minio pins it) into the per-user cache. MinIO publishes no tagged Go
 * module versions, so the pin is a pseudo-version of its main branch; its go.mod has no
 * replace directives, so a module that requires it builds it as it is.
 */
import { ensureGoTool } from './go-tool.ts';

export function ensureMinio(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<string> {
  return ensureGoTool({ folder: 'minio', name: 'minio', title: 'MinIO', pkg: 'github.com/minio/minio' }, env, log);
}
