/**
 * The parts of a Dagu 2.x http step that live in files: `form` and `files` as a multipart body
 * (resty's SetMultipartFormData and SetFiles: one part per field, a file part named by the
 * file's base name), and `output`, the response body written to a file instead of stdout
 * (v2.15.1 writeResponseBodyFile: parent directories made, written to a temporary file beside it
 * and renamed over it, mode 0600, so a failed download leaves what was there before). Files
 * are streamed both ways, so neither an upload nor a download is held in memory.
 */
import { createWriteStream, openAsBlob, promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { FormData } from 'undici';

/** A multipart body of the text fields, then the files (field -> absolute path). */
export async function multipartBody(
  form: Readonly<Record<string, string>>,
  files: Readonly<Record<string, string>>,
): Promise<FormData> {
  const body = new FormData();
  for (const [field, value] of Object.entries(form)) body.append(field, value);
  for (const [field, path] of Object.entries(files)) {
    let blob: Blob;
    try {
      const stats = await fs.stat(path);
      if (!stats.isFile()) throw new Error('not a regular file');
      blob = await openAsBlob(path);
    } catch (error) {
      throw new Error(`files.${field}: cannot read ${path}: ${(error as Error).message}`, { cause: error });
    }
    body.append(field, blob, basename(path));
  }
  return body;
}

/** Writes a response body to `path` whole or not at all; `gunzip` when the runner asked for gzip and got it. */
export async function writeBodyFile(path: string, body: AsyncIterable<Uint8Array>, gunzip: boolean): Promise<void> {
  const folder = dirname(path);
  const temporary = join(folder, `${basename(path)}.tmp.${randomBytes(6).toString('hex')}`);
  try {
    await fs.mkdir(folder, { recursive: true, mode: 0o750 });
    const file = createWriteStream(temporary, { mode: 0o600 });
    await (gunzip ? pipeline(body, createGunzip(), file) : pipeline(body, file));
    await fs.chmod(temporary, 0o600);
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.rm(temporary, { force: true }).catch(() => undefined); // nothing was made, or nothing can be
    throw new Error(`output: cannot write the response body to ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
