/**
 * What Dagu's s3 executor writes (v2.15.1 internal/runtime/builtin/s3/): one JSON document per
 * operation, indented by two spaces as Go's json.Encoder with SetIndent writes it, fields in
 * Dagu's order with its `omitempty` ones left out; `duration` as Go's Duration.String of the
 * time taken, rounded to the millisecond; the Content-Type of an upload from the file's
 * extension as Go's mime.TypeByExtension knows it. Pure.
 */
import { extname } from 'node:path';

/** Go's json.Encoder with SetIndent("", "  "): two-space indentation and a newline. */
export function goJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Go's Duration.String of a whole number of milliseconds: `0s`, `12ms`, `1.5s`, `2m3.004s`, `1h0m0s`. */
export function goDurationText(ms: number): string {
  const total = Math.round(ms);
  if (total === 0) return '0s';
  const sign = total < 0 ? '-' : '';
  const abs = Math.abs(total);
  if (abs < 1000) return `${sign}${String(abs)}ms`;
  const hours = Math.floor(abs / 3_600_000);
  const minutes = Math.floor((abs % 3_600_000) / 60_000);
  const millis = abs % 60_000;
  const seconds = `${String(Math.floor(millis / 1000))}${
    millis % 1000 === 0
      ? ''
      : `.${String(millis % 1000)
          .padStart(3, '0')
          .replace(/0+$/, '')}`
  }s`;
  if (hours > 0) return `${sign}${String(hours)}h${String(minutes)}m${seconds}`;
  if (minutes > 0) return `${sign}${String(minutes)}m${seconds}`;
  return `${sign}${seconds}`;
}

/**
 * Go's built-in table of mime.TypeByExtension, with the common types a Linux system's
 * mime.types adds (Dagu reads that file too; a step Pod's image may not have one).
 */
const MIME_TYPES: Readonly<Record<string, string>> = {
  '.avif': 'image/avif',
  '.css': 'text/css; charset=utf-8',
  '.gif': 'image/gif',
  '.htm': 'text/html; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.mjs': 'text/javascript; charset=utf-8',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.wasm': 'application/wasm',
  '.webp': 'image/webp',
  '.xml': 'text/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
  '.zip': 'application/zip',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
};

/** The upload's Content-Type: the one written, else by extension (case-insensitive), else octet-stream. */
export function contentTypeOf(written: string, source: string): string {
  if (written !== '') return written;
  return MIME_TYPES[extname(source).toLowerCase()] ?? 'application/octet-stream';
}

/** An ETag without the quotes S3 puts round it. */
export const bareEtag = (etag: string | undefined): string => (etag ?? '').replace(/^"+|"+$/g, '');

/** Go's time.RFC3339 of a UTC time: whole seconds, `Z`. */
export const rfc3339 = (time: Date | undefined): string =>
  time === undefined ? '' : time.toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface ListObject {
  readonly key: string;
  readonly size: number;
  readonly lastModified: string;
  readonly etag?: string;
  readonly storageClass?: string;
}

/** An object or common prefix of a listing, in Dagu's shape (a prefix has only its key, size 0). */
export function listObject(entry: {
  Key?: string;
  Size?: number;
  LastModified?: Date;
  ETag?: string;
  StorageClass?: string;
}): ListObject {
  const etag = bareEtag(entry.ETag);
  return {
    key: entry.Key ?? '',
    size: entry.Size ?? 0,
    lastModified: rfc3339(entry.LastModified),
    ...(etag === '' ? {} : { etag }),
    ...(entry.StorageClass === undefined || entry.StorageClass === '' ? {} : { storageClass: entry.StorageClass }),
  };
}
