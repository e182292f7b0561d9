/**
 * What Dagu's http executor gets from its client without asking: resty v2.16.5 (the version
 * Dagu v1.24.11 pins) over Go's net/http Transport. undici adds none of it, so the runner
 * decides it here. Pure.
 *
 * Request: resty names itself in User-Agent, copies a JSON or XML Content-Type into an empty
 * Accept, and gives a body the type Go sniffs from its bytes (resty only does this for methods
 * that may carry a body); the Transport asks for gzip unless the request already says what it
 * accepts, asks for a range, or is a HEAD.
 * Response: the Transport unzips what it asked for and then drops Content-Encoding and
 * Content-Length (they describe bytes the caller never sees); resty unzips any other gzip body
 * too, but leaves those headers as the server sent them.
 */
import { detectContentType } from '../go-sniff.ts';

/** Sent when the step sets no User-Agent: some APIs (GitHub's) refuse a request without one. */
export const USER_AGENT = 'kubedag-step';

/** resty sends no body, and sets no Content-Type, for these. */
const NO_PAYLOAD = new Set(['GET', 'HEAD', 'OPTIONS']);
const JSON_TYPE = /(application|text)\/(.*json.*)(;|$)/i;
const XML_TYPE = /(application|text)\/(.*xml.*)(;|$)/i;

export interface WireRequest {
  readonly headers: Readonly<Record<string, string>>;
  /** True when the runner, not the step, asked for gzip: only then are the headers about it dropped. */
  readonly addedGzip: boolean;
}

type Headers = Readonly<Record<string, string>>;

/** The value under any spelling of the name, '' when there is none. */
function headerValue(headers: Headers, name: string): string {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? '' : (headers[key] ?? '');
}

/** Replaces any spelling of the name, as Go's Header.Set does with its canonical one. */
function withHeader(headers: Headers, name: string, value: string): Headers {
  return {
    ...Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== name.toLowerCase())),
    [name]: value,
  };
}

const blank = (value: string): boolean => value.trim() === '';

/**
 * resty's part: User-Agent, Accept from a JSON or XML Content-Type, a sniffed Content-Type. A
 * multipart body's type (with its boundary) is the body's own: resty sets it over the step's,
 * and here the client sets it, so the step's is taken out.
 */
function restyHeaders(method: string, stepHeaders: Headers, body: string, multipart: boolean): Headers {
  let headers = stepHeaders;
  if (blank(headerValue(headers, 'User-Agent'))) headers = withHeader(headers, 'User-Agent', USER_AGENT);
  const contentType = headerValue(headers, 'Content-Type');
  if (
    !blank(contentType) &&
    blank(headerValue(headers, 'Accept')) &&
    (JSON_TYPE.test(contentType) || XML_TYPE.test(contentType))
  )
    headers = withHeader(headers, 'Accept', contentType);
  if (multipart) return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'));
  // Dagu hands resty the body as bytes, even an empty one, so every method that may carry a
  // body gets a type; Go sniffs it, which makes JSON text/plain.
  if (!NO_PAYLOAD.has(method) && blank(contentType))
    headers = withHeader(headers, 'Content-Type', detectContentType(Buffer.from(body)));
  return headers;
}

/** The headers to send for the step's method, headers and body (or a multipart body). */
export function wireRequest(method: string, stepHeaders: Headers, body: string, multipart = false): WireRequest {
  const headers = restyHeaders(method, stepHeaders, body, multipart);
  // The Transport's part. Go tests these for the empty string, not for blanks.
  const addedGzip =
    headerValue(headers, 'Accept-Encoding') === '' && headerValue(headers, 'Range') === '' && method !== 'HEAD';
  return { headers: addedGzip ? withHeader(headers, 'Accept-Encoding', 'gzip') : headers, addedGzip };
}

export interface ResponseDecoding {
  readonly gunzip: boolean;
  /** Response headers (lower case, as undici gives them) to leave out of what the step prints. */
  readonly dropHeaders: readonly string[];
}

type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

/** What to undo in a response, from who asked for gzip and the response's own headers. */
export function responseDecoding(addedGzip: boolean, headers: ResponseHeaders): ResponseDecoding {
  if (first(headers['content-encoding'])?.toLowerCase() !== 'gzip') return { gunzip: false, dropHeaders: [] };
  if (addedGzip) return { gunzip: true, dropHeaders: ['content-encoding', 'content-length'] };
  // resty's own unzipping skips a body the server says is empty.
  return { gunzip: first(headers['content-length']) !== '0', dropHeaders: [] };
}
