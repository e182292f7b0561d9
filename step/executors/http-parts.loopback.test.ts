/**
 * Dagu 2.x's http settings `form`, `files`, `format` and `output` against a real server on
 * loopback: the server parses what it receives as multipart with the platform's own parser, and
 * the files are real files in a temporary working directory.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { runHttp } from './http.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';

interface Part {
  readonly field: string;
  readonly value: string;
  readonly fileName?: string;
}
interface Seen {
  readonly contentType: string;
  readonly parts: Part[];
}

let seen: Seen[] = [];
let server: Server;
let base = '';
let work: { path: string; remove: () => Promise<void> };

async function parts(request: IncomingMessage, body: Buffer): Promise<Part[]> {
  const type = request.headers['content-type'] ?? '';
  if (!type.startsWith('multipart/form-data')) return [];
  // The platform's parser is deprecated for servers under load; here it is an independent reader of what was sent.
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const form = await new Request('http://x', { method: 'POST', headers: { 'content-type': type }, body }).formData();
  const out: Part[] = [];
  for (const [field, value] of form.entries())
    out.push(typeof value === 'string' ? { field, value } : { field, value: await value.text(), fileName: value.name });
  return out;
}

function handle(request: IncomingMessage, response: ServerResponse): void {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    void parts(request, Buffer.concat(chunks)).then((found) => {
      seen.push({ contentType: request.headers['content-type'] ?? '', parts: found });
      response.sendDate = false;
      if (request.url === '/missing') return response.writeHead(404, { 'content-type': 'text/plain' }).end('missing');
      if (request.url === '/zipped') {
        const zipped = gzipSync('unzipped bytes');
        return response.writeHead(200, { 'content-encoding': 'gzip' }).end(zipped);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(async () => {
  seen = [];
  work = await temporaryDir('http-parts');
  return () => work.remove();
});

async function run(spec: Partial<ExecutorSpec> & { command: string }, env: Record<string, string> = {}) {
  const io = captureIO({ env, cwd: work.path });
  const code = await runHttp({ type: 'http', config: {}, ...spec }, io).catch(
    (error: unknown) => `error: ${(error as Error).message}`,
  );
  return { code, stdout: io.out(), stderr: io.err() };
}

describe('http form and files', () => {
  it('sends form fields and files (relative to the working directory) as one multipart body', async () => {
    await mkdir(join(work.path, 'in'));
    await writeFile(join(work.path, 'in', 'report.csv'), 'a,b\n1,2\n');
    const done = await run(
      {
        command: `POST ${base}/upload`,
        config: {
          form: { name: '${WHO}', count: 3 },
          files: { report: 'in/report.csv' },
          headers: { 'Content-Type': 'text/plain' },
          silent: true,
        },
      },
      { WHO: 'nightly' },
    );
    expect(done).toEqual({ code: 0, stdout: '{"ok":true}', stderr: '' });
    expect(seen[0]?.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.parts).toEqual([
      { field: 'name', value: 'nightly' },
      { field: 'count', value: '3' },
      { field: 'report', value: 'a,b\n1,2\n', fileName: 'report.csv' },
    ]);
  });

  it('fails the step, sending nothing, when a file cannot be read', async () => {
    const done = await run({ command: `POST ${base}/upload`, config: { files: { report: 'absent.csv' } } });
    expect(done.code).toMatch(/^error: POST http:\S+\/upload: files\.report: cannot read \/.*\/absent\.csv: ENOENT/);
    expect(seen).toEqual([]);
  });
});

describe('http output', () => {
  it('writes a 2xx body to the file (parents made, mode 0600) and only the head to stdout', async () => {
    const done = await run({ command: `GET ${base}/data`, config: { output: 'out/data.json' } });
    const file = join(work.path, 'out', 'data.json');
    expect([done.code, done.stdout]).toEqual([
      0,
      expect.stringMatching(/^200 OK\n(.*\r\n)*Content-Type: application\/json\r\n(.*\r\n)*$/),
    ]);
    expect(await readFile(file, 'utf8')).toBe('{"ok":true}');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(work.path, 'out'))).toEqual(['data.json']); // no temporary file left
  });

  it('with format: json, prints the status, headers and the file instead of the body', async () => {
    const done = await run({ command: `GET ${base}/data`, config: { output: 'data.json', format: 'json' } });
    expect(JSON.parse(done.stdout)).toEqual({
      status_code: 200,
      headers: expect.objectContaining({ 'Content-Type': ['application/json'] }) as unknown,
      output: join(work.path, 'data.json'),
    });
  });

  it('fails the step when the file cannot be written', async () => {
    await writeFile(join(work.path, 'plain'), '');
    const done = await run({ command: `GET ${base}/data`, config: { output: join(work.path, 'plain', 'x') } });
    expect(done.code).toMatch(/^error: GET \S+: output: cannot write the response body to \/.*\/plain\/x: EEXIST/);
  });

  it('unzips a body the runner asked gzip for before writing it', async () => {
    const kept = await run({ command: `GET ${base}/zipped`, config: { output: 'z.txt', silent: true } });
    expect([kept.code, kept.stdout, await readFile(join(work.path, 'z.txt'), 'utf8')]).toEqual([
      0,
      '',
      'unzipped bytes',
    ]);
  });

  it('leaves the file as it was on an error status, which goes to stdout (as text in JSON) and fails the step', async () => {
    await writeFile(join(work.path, 'keep.txt'), 'old');
    const text = await run({ command: `GET ${base}/missing`, config: { output: 'keep.txt', silent: true } });
    expect([text.code, /^404 Not Found\n.*\r\nmissing$/s.test(text.stdout), text.stderr]).toEqual([
      1,
      true,
      'http status code not 2xx: 404\n',
    ]);
    const json = await run({ command: `GET ${base}/missing`, config: { output: 'keep.txt', json: true } });
    expect([json.code, (JSON.parse(json.stdout) as { body: unknown }).body]).toEqual([1, 'missing']);
    expect(await readFile(join(work.path, 'keep.txt'), 'utf8')).toBe('old');
  });
});
