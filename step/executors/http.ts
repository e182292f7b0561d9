/**
 * The http executor, as Dagu v1.24.11 runs it: `command` is `<METHOD> <URL>`; settings come
 * from the executor config, or from the step's `script` as JSON when it has one. The response
 * goes to stdout: unless `silent` (and always on a failure), the status line and the headers as
 * Go writes them, then the body; with `json` (2.x also `format: json`), one JSON document of
 * status, headers and body. A status outside 2xx fails the step. A stop aborts the request.
 * What Go's client does unasked (gzip, redirects, default headers) is decided in
 * http-go-client.ts. Dagu 2.x's `form` and `files` (a multipart body) and `output` (the body
 * to a file) are read as v2.15.1 reads them; their files are handled in http-parts.ts.
 */
import { isAbsolute, join, normalize } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Agent, interceptors, request } from 'undici';
import { splitCommand } from '../../core/dag/index.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { canonicalHeader, goHeaders, goJson, Ordered } from '../go-text.ts';
import { expandSetting, type StepIO } from '../io.ts';
import { boolSetting, intSetting, mapSetting, SettingError, textSetting } from '../settings.ts';
import { responseDecoding, wireRequest } from './http-go-client.ts';
import { multipartBody, writeBodyFile } from './http-parts.ts';

/** Any method token HTTP allows (PURGE, PROPFIND...), as Dagu sends what it is given. */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface HttpRequest {
  readonly method: string;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Multipart fields, and files (field -> absolute path); either makes the body multipart. */
  readonly form: Readonly<Record<string, string>>;
  readonly files: Readonly<Record<string, string>>;
  /** Where a 2xx response's body goes instead of stdout (an absolute path). */
  readonly output?: string;
  /** Seconds for the whole exchange, body included (Go's Client.Timeout); 0: none. */
  readonly timeout: number;
  readonly silent: boolean;
  readonly json: boolean;
  readonly debug: boolean;
  readonly skipTLSVerify: boolean;
}

function settingsOf(spec: ExecutorSpec): Readonly<Record<string, unknown>> {
  if (spec.script === undefined || spec.script.trim() === '') return spec.config;
  try {
    const parsed: unknown = JSON.parse(spec.script);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new SettingError('script: the http executor reads its settings from script as a JSON object');
}

/** A path as Dagu resolves a file setting: relative ones against the step's working directory. */
function stepPath(text: string, cwd: string): string {
  return normalize(isAbsolute(text) ? text : join(cwd, text));
}

/** `format` is 2.x's spelling of `json: true`; Dagu writes text for any other word, here only `text` is taken. */
function jsonFormat(config: Readonly<Record<string, unknown>>, env: Readonly<Record<string, string>>): boolean {
  const format = (textSetting(config, 'format', env) ?? '').trim();
  if (format === 'json') return true;
  if (format === '' || format === 'text') return boolSetting(config, 'json', env);
  throw new SettingError(`format: must be json or text, not ${JSON.stringify(format)}`);
}

type Payload = Pick<HttpRequest, 'body' | 'form' | 'files' | 'output'>;

/** What goes out and where the answer goes: a body, or multipart fields and files; `output`. */
function payloadSettings(
  config: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
  cwd: string,
): Payload {
  const body = textSetting(config, 'body', env) ?? '';
  const form = mapSetting(config, 'form', env);
  const files = Object.fromEntries(
    Object.entries(mapSetting(config, 'files', env)).map(([field, path]) => [field, stepPath(path, cwd)]),
  );
  if (body !== '' && Object.keys(form).length + Object.keys(files).length > 0)
    throw new SettingError('body: cannot be combined with form or files');
  const output = (textSetting(config, 'output', env) ?? '').trim();
  return { body, form, files, ...(output === '' ? {} : { output: stepPath(output, cwd) }) };
}

/**
 * The request a step describes, its `${VAR}` references expanded, its file settings resolved
 * against the working directory `cwd`; a SettingError when it cannot be made.
 */
export function httpRequest(spec: ExecutorSpec, env: Readonly<Record<string, string>>, cwd: string): HttpRequest {
  const { words, error } = splitCommand(expandSetting(spec.command ?? '', env));
  const [methodWord = '', urlWord, ...rest] = words;
  if (error !== undefined || urlWord === undefined || rest.length > 0)
    throw new SettingError(`command: must be "<METHOD> <URL>", not ${JSON.stringify(spec.command ?? '')}`);
  const method = methodWord.toUpperCase();
  if (!METHOD_TOKEN.test(method)) throw new SettingError(`command: not an HTTP method: "${methodWord}"`);
  let url: URL;
  try {
    url = new URL(urlWord);
  } catch {
    throw new SettingError(`command: not a URL: "${urlWord}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SettingError(`command: only http and https URLs, not "${url.protocol}"`);
  const config = settingsOf(spec);
  // Like resty: parameters are added after any the URL already has, in Go's sorted order.
  const query = mapSetting(config, 'query', env);
  for (const name of Object.keys(query).sort()) url.searchParams.append(name, query[name] ?? '');
  const timeout = intSetting(config, 'timeout', env);
  if (timeout < 0) throw new SettingError('timeout: must not be negative');
  return {
    method,
    url,
    headers: mapSetting(config, 'headers', env),
    ...payloadSettings(config, env, cwd),
    timeout,
    silent: boolSetting(config, 'silent', env),
    json: jsonFormat(config, env),
    debug: boolSetting(config, 'debug', env),
    skipTLSVerify: boolSetting(config, 'skipTLSVerify', env),
  };
}

interface Response {
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

const isSuccess = (status: number): boolean => status >= 200 && status <= 299;

/** The body as JSON; with `output`, an error's body that is not JSON is kept as text (Dagu's writeJSONResult). */
function jsonBody(req: Pick<HttpRequest, 'output'>, res: Response): unknown {
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch (error) {
    if (req.output !== undefined) return res.body.toString('utf8');
    throw new Error(`json: the response body is not JSON: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * What Dagu writes to stdout for a response. With `output`, a 2xx response's body is in that
 * file: stdout has the head alone (none when silent), or the JSON document with the file's path
 * in place of the body.
 */
export function responseText(req: Pick<HttpRequest, 'silent' | 'json' | 'output'>, res: Response): Buffer {
  const ok = isSuccess(res.status);
  const showHead = !ok || !req.silent;
  const inFile = ok && req.output !== undefined;
  if (req.json) {
    const headers = showHead
      ? Object.fromEntries(
          Object.entries(res.headers).flatMap(([k, v]) =>
            v === undefined ? [] : [[canonicalHeader(k), typeof v === 'string' ? [v] : v]],
          ),
        )
      : null;
    return Buffer.from(
      goJson(
        new Ordered([
          ['status_code', showHead ? res.status : 0],
          ['headers', headers],
          inFile ? ['output', req.output] : ['body', jsonBody(req, res)],
        ]),
        ' ',
      ),
    );
  }
  const head = showHead ? `${String(res.status)} ${res.statusText}\n${goHeaders(res.headers)}` : '';
  return inFile ? Buffer.from(head) : Buffer.concat([Buffer.from(head), res.body]);
}

/** Go's client follows up to 10 redirects; undici follows none unless told. */
const MAX_REDIRECTS = 10;

const gunzipped = promisify(gunzip);

async function send(req: HttpRequest, signal: AbortSignal, agent: Agent): Promise<Response> {
  const multipart = Object.keys(req.form).length + Object.keys(req.files).length > 0;
  const wire = wireRequest(req.method, req.headers, req.body, multipart);
  const payload = multipart ? await multipartBody(req.form, req.files) : req.body === '' ? undefined : req.body;
  const res = await request(req.url, {
    method: req.method,
    headers: wire.headers,
    ...(payload === undefined ? {} : { body: payload }),
    signal,
    dispatcher: agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTS })),
  });
  const decoding = responseDecoding(wire.addedGzip, res.headers);
  if (req.output !== undefined && isSuccess(res.statusCode)) {
    // Streamed to the file; a body the server says is empty has nothing to unzip.
    const empty = res.headers['content-length'] === '0';
    await writeBodyFile(req.output, res.body, decoding.gunzip && !empty);
    return {
      status: res.statusCode,
      statusText: res.statusText,
      headers: headersOf(res.headers, decoding),
      body: Buffer.alloc(0),
    };
  }
  let body = Buffer.from(await res.body.arrayBuffer());
  // An empty body has nothing to unzip (Go's reader sees a clean end), and zlib would call it truncated.
  if (decoding.gunzip && body.length > 0) {
    try {
      body = await gunzipped(body);
    } catch (error) {
      throw new Error(`the response body is not valid gzip (${(error as Error).message})`, { cause: error });
    }
  }
  return { status: res.statusCode, statusText: res.statusText, headers: headersOf(res.headers, decoding), body };
}

function headersOf(
  headers: Response['headers'],
  decoding: { readonly dropHeaders: readonly string[] },
): Response['headers'] {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !decoding.dropHeaders.includes(name)));
}

export async function runHttp(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const req = httpRequest(spec, io.env, io.cwd);
  const timeout = req.timeout > 0 ? AbortSignal.timeout(req.timeout * 1000) : undefined;
  const signal = timeout === undefined ? io.signal : AbortSignal.any([io.signal, timeout]);
  const agent = new Agent(req.skipTLSVerify ? { connect: { rejectUnauthorized: false } } : {});
  if (req.debug) io.stderr.write(`${req.method} ${req.url.href}\n`);
  let res: Response;
  try {
    res = await send(req, signal, agent);
  } catch (error) {
    if (io.signal.aborted) throw error;
    if (timeout?.aborted === true)
      throw new Error(
        `${req.method} ${req.url.href}: no complete response within the timeout of ${String(req.timeout)} s`,
        { cause: error },
      );
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new Error(
      `${req.method} ${req.url.href}: ${(error as Error).message}${cause === undefined ? '' : ` (${cause})`}`,
      { cause: error },
    );
  } finally {
    await agent.close();
  }
  if (req.debug) io.stderr.write(`${String(res.status)} ${res.statusText} (${String(res.body.length)} bytes)\n`);
  io.stdout.write(responseText(req, res));
  if (isSuccess(res.status)) return 0;
  io.stderr.write(`http status code not 2xx: ${String(res.status)}\n`);
  return 1;
}
