import { Writable } from 'node:stream';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel } from '../core/log.ts';
import { buildApp } from './app.ts';
import type { AppDeps } from './deps.ts';
import { ApiError } from './errors.ts';
import { requestBody } from './schemas.ts';

const clock = (): Date => new Date('2026-11-22T10:00:00.123Z');

/** A logger whose JSON lines are kept, parsed, for the test to read. */
function captured(level: LogLevel): { logger: ReturnType<typeof createLogger>; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('apiserver', { level, format: 'json' }, stream), lines };
}

function app(overrides: Partial<AppDeps> = {}): ReturnType<typeof buildApp> {
  const built = buildApp({
    version: '0.1.0',
    clock,
    health: () => Promise.resolve(undefined),
    bodyLimit: 1024,
    ...overrides,
  });
  // A probe route standing in for the real ones: a JSON body with a schema, and thrown errors.
  const typed = built.withTypeProvider<TypeBoxTypeProvider>();
  typed.post(
    '/api/v2/probe',
    { schema: { body: requestBody({ n: Type.Integer(), note: Type.Optional(Type.String()) }) } },
    (request) => {
      const { n } = request.body;
      if (n === 409) throw new ApiError('already_running', 'a run is active');
      if (n === 400) throw new ApiError('already_running', 'a run is active', { status: 400 });
      if (n === 500) throw new Error('a bug of ours');
      // The body as the route got it: what the validator kept, and nothing else.
      return request.body;
    },
  );
  typed.get('/api/v2/probe/:id', (request) => request.params);
  typed.get(
    '/api/v2/probe',
    { schema: { querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1 })) }) } },
    (request) => request.query,
  );
  return built;
}

describe('GET /api/v2/health', () => {
  it('answers 200 healthy with version, uptime and a timestamp with fractions', async () => {
    const res = await app().inject({ method: 'GET', url: '/api/v2/health' });
    expect([res.statusCode, res.json()]).toEqual([
      200,
      { status: 'healthy', version: '0.1.0', uptime: 0, timestamp: '2026-11-22T10:00:00.123Z' },
    ]);
  });

  it('answers 503 unhealthy with the reason', async () => {
    const res = await app({ health: () => Promise.resolve('no operator leader') }).inject({
      method: 'GET',
      url: '/api/v2/health',
    });
    expect([res.statusCode, res.json()]).toEqual([
      503,
      {
        status: 'unhealthy',
        version: '0.1.0',
        uptime: 0,
        timestamp: '2026-11-22T10:00:00.123Z',
        error: 'no operator leader',
      },
    ]);
  });
});

describe('errors in the contract shape', () => {
  const json = { 'content-type': 'application/json' };
  const cases: {
    name: string;
    method: 'GET' | 'POST';
    url: string;
    body?: string;
    headers?: Record<string, string>;
    status: number;
    code: string;
  }[] = [
    {
      name: 'malformed JSON is a bad request',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": ',
      headers: json,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a wrong type is a bad request',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": "x"}',
      headers: json,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a number written as text is a wrong type, not coerced',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": "5"}',
      headers: json,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a missing field is a bad request',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"note": "x"}',
      headers: json,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a wrong type beside an unknown field is still a bad request',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": 1, "note": 2, "extra": true}',
      headers: json,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a body over the limit is 413 with a JSON body',
      method: 'POST',
      url: '/api/v2/probe',
      body: JSON.stringify({ n: 1, pad: 'x'.repeat(2000) }),
      headers: json,
      status: 413,
      code: 'bad_request',
    },
    {
      name: 'a body that is not JSON is a bad request',
      method: 'POST',
      url: '/api/v2/probe',
      body: 'n=1',
      headers: { 'content-type': 'text/plain' },
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a query parameter that is not a number is a bad request',
      method: 'GET',
      url: '/api/v2/probe?page=x',
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'an integer query parameter written as a decimal is a bad request',
      method: 'GET',
      url: '/api/v2/probe?page=1.0',
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'an integer query parameter in exponent notation is a bad request',
      method: 'GET',
      url: '/api/v2/probe?page=1e2',
      status: 400,
      code: 'bad_request',
    },
    { name: 'an unknown route is not found', method: 'GET', url: '/api/v2/nope?x=1', status: 404, code: 'not_found' },
    {
      name: 'a URL with broken percent-encoding is a bad request',
      method: 'GET',
      url: '/api/v2/probe/%zz',
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a path parameter over the length limit is a bad request, not a 414',
      method: 'GET',
      url: `/api/v2/probe/${'x'.repeat(600)}`,
      status: 400,
      code: 'bad_request',
    },
    {
      name: 'a code thrown by a route gets its registered status',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": 409}',
      headers: json,
      status: 409,
      code: 'already_running',
    },
    {
      name: 'a throw site may choose the other status the contract uses',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": 400}',
      headers: json,
      status: 400,
      code: 'already_running',
    },
    {
      name: 'a fault of ours is a 500 internal_error that hides the details',
      method: 'POST',
      url: '/api/v2/probe',
      body: '{"n": 500}',
      headers: json,
      status: 500,
      code: 'internal_error',
    },
  ];
  it.each(cases)('$name', async ({ method, url, body, headers, status, code }) => {
    const { logger, lines: logged } = captured('error');
    const res = await app({ logger }).inject({
      method,
      url,
      ...(body === undefined ? {} : { body }),
      ...(headers === undefined ? {} : { headers }),
    });
    expect(res.statusCode).toBe(status);
    const payload = res.json<{ code: string; message: string }>();
    expect(payload.code).toBe(code);
    expect(typeof payload.message).toBe('string');
    if (status === 500) expect([payload.message, logged.length]).toEqual(['internal error', 1]);
  });
});

describe('request bodies', () => {
  it.each([
    { name: 'an unknown field is dropped', body: { n: 1, extra: true }, want: { n: 1 } },
    {
      name: 'unknown fields of every type are dropped and the known ones kept',
      body: { n: 2, note: 'kept', singleton: false, nested: { a: [1] }, nothing: null },
      want: { n: 2, note: 'kept' },
    },
    {
      name: 'a body with only its own fields reaches the route as sent',
      body: { n: 3, note: 'x' },
      want: { n: 3, note: 'x' },
    },
  ])('reach the route with the fields their schema defines: $name', async ({ body, want }) => {
    const res = await app().inject({ method: 'POST', url: '/api/v2/probe', payload: body });
    expect([res.statusCode, res.json()]).toEqual([200, want]);
  });
});

describe('query strings', () => {
  it('coerce numbers from their text form', async () => {
    const res = await app().inject({ method: 'GET', url: '/api/v2/probe?page=2' });
    expect([res.statusCode, res.json()]).toEqual([200, { page: 2 }]);
  });
});

describe('request ids', () => {
  it.each([
    { name: "the caller's x-request-id is kept", header: 'req-42_a.b:c', want: 'req-42_a.b:c' },
    { name: 'a new id is made when none is sent', header: undefined, want: /^[0-9a-f-]{36}$/ },
    { name: 'an id with spaces is replaced', header: 'a b', want: /^[0-9a-f-]{36}$/ },
    { name: 'an id longer than 128 characters is replaced', header: 'x'.repeat(129), want: /^[0-9a-f-]{36}$/ },
  ])('label every line about a request: $name', async ({ header, want }) => {
    const { logger, lines } = captured('debug');
    await app({ logger }).inject({
      method: 'POST',
      url: '/api/v2/probe',
      body: { n: 500 },
      ...(header === undefined ? {} : { headers: { 'x-request-id': header } }),
    });
    const ids = new Set(lines.map((line) => line.requestId));
    expect(lines.map((line) => line.msg)).toEqual(['internal_error: a bug of ours', 'request completed']);
    expect(ids.size).toBe(1);
    expect([...ids][0]).toEqual(typeof want === 'string' ? want : expect.stringMatching(want));
  });

  it('leaves requests out of the log at the info level', async () => {
    const { logger, lines } = captured('info');
    await app({ logger }).inject({ method: 'GET', url: '/api/v2/health' });
    expect(lines).toEqual([]);
  });
});
