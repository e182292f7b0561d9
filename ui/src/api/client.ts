/**
 * The typed API client: openapi-fetch over the paths generated from the server's OpenAPI
 * document (schema.d.ts) and the few /api/v1 paths the UI calls (schema-v1.d.ts: approval of a
 * waiting step), with the session's credentials on every request.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';
import type { paths as v1Paths } from './schema-v1';
import type { Session } from './session.ts';

type AllPaths = paths & v1Paths;
export type ApiClient = Client<AllPaths>;

/** An answer that is not a success, in the contract's terms ({code, message}). */
export class ApiFailure extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'ApiFailure';
    this.status = status;
    this.code = code;
  }
}

export function apiClient(
  session: Session,
  baseUrl: string,
  fetch: typeof globalThis.fetch = globalThis.fetch,
): ApiClient {
  // credentials 'omit' unless the server offers OIDC sign-in (its session is an HttpOnly cookie):
  // the Authorization header is ours to send, and a 401's `WWW-Authenticate: Basic` then raises
  // no browser login dialog over the sign-in form.
  const send = (request: Request): Promise<Response> =>
    fetch(new Request(request, { credentials: session.usesCookies() ? 'same-origin' : 'omit' }));
  const client = createClient<AllPaths>({ baseUrl, headers: { Accept: 'application/json' }, fetch: send });
  client.use({
    onRequest({ request }) {
      // A request that names its own credentials (the sign-in form trying them) keeps them.
      const header = session.header();
      if (header !== undefined && !request.headers.has('Authorization')) request.headers.set('Authorization', header);
      return request;
    },
    onResponse({ request, response }) {
      if (response.status === 401) session.rejected(request.headers.get('Authorization') ?? undefined);
      return response;
    },
  });
  return client;
}

function failure(response: Response, error: unknown): ApiFailure {
  const body = (typeof error === 'object' && error !== null ? error : {}) as Partial<
    Record<'code' | 'message', unknown>
  >;
  const code = typeof body.code === 'string' ? body.code : `http_${String(response.status)}`;
  const message =
    typeof body.message === 'string' ? body.message : `${String(response.status)} ${response.statusText}`.trim();
  return new ApiFailure(response.status, code, message);
}

/** The data of a successful answer, or an ApiFailure thrown (what TanStack Query expects). */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data: value, error, response } = await call;
  if (!response.ok) throw failure(response, error);
  if (value === undefined) throw new ApiFailure(response.status, 'empty_answer', 'the API answered without a body');
  return value;
}
