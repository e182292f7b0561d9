/**
 * Every route with a request body, as the app serves it without a cluster: a body that passes
 * its schema reaches the route, which answers 503 at its first question to the cluster (or
 * answers itself, as validate does); a body that fails is a 400 in the contract's shape.
 */
import { describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';

const app = buildApp({ version: 't', clock: () => new Date(), health: () => Promise.resolve(undefined) });

type Method = 'POST' | 'PUT' | 'PATCH';

const SPEC = 'steps:\n  - echo hi\n';
const steps = '/api/v2/dag-runs/d/r1/steps/s/status';
const subSteps = '/api/v2/dag-runs/d/r1/sub-dag-runs/r2/steps/s/status';

/** A body with a field the route does not define, and where it goes once accepted. */
const accepted: { route: string; method: Method; url: string; body: object; status: number }[] = [
  { route: 'POST /dags', method: 'POST', url: '/api/v2/dags', body: { name: 'x', color: 'blue' }, status: 503 },
  {
    route: 'PUT /dags/{fileName}/spec',
    method: 'PUT',
    url: '/api/v2/dags/x/spec',
    body: { spec: SPEC, comment: 'why' },
    status: 503,
  },
  {
    route: 'POST /dags/validate',
    method: 'POST',
    url: '/api/v2/dags/validate',
    body: { spec: SPEC, name: 'v', strict: true },
    status: 200,
  },
  {
    route: 'POST /dags/{fileName}/rename',
    method: 'POST',
    url: '/api/v2/dags/x/rename',
    body: { newFileName: 'y', keepHistory: true },
    status: 503,
  },
  {
    route: 'POST /dags/{fileName}/start',
    method: 'POST',
    url: '/api/v2/dags/x/start',
    body: { singleton: false, priority: 3 },
    status: 503,
  },
  {
    route: 'POST /dags/{fileName}/enqueue',
    method: 'POST',
    url: '/api/v2/dags/x/enqueue',
    body: { queue: 'q', singleton: false },
    status: 503,
  },
  {
    route: 'POST /dags/{fileName}/suspend',
    method: 'POST',
    url: '/api/v2/dags/x/suspend',
    body: { suspend: true, reason: 'maintenance' },
    status: 503,
  },
  {
    route: 'POST /dag-runs',
    method: 'POST',
    url: '/api/v2/dag-runs',
    body: { spec: SPEC, name: 'inline', labels: { a: 'b' } },
    status: 503,
  },
  {
    route: 'POST /dag-runs/enqueue',
    method: 'POST',
    url: '/api/v2/dag-runs/enqueue',
    body: { spec: SPEC, name: 'inline', singleton: true },
    status: 503,
  },
  {
    route: 'POST /dag-runs/{name}/{dagRunId}/retry',
    method: 'POST',
    url: '/api/v2/dag-runs/d/r1/retry',
    body: { dagRunId: 'r2', singleton: false },
    status: 503,
  },
  // Exactly what Dagu 1.24.11's web UI sends.
  {
    route: 'POST /dag-runs/{name}/{dagRunId}/reschedule',
    method: 'POST',
    url: '/api/v2/dag-runs/d/r1/reschedule',
    body: { singleton: false },
    status: 503,
  },
  {
    route: 'PATCH /dag-runs/{name}/{dagRunId}/steps/{stepName}/status',
    method: 'PATCH',
    url: steps,
    body: { status: 4, note: 'done by hand' },
    status: 503,
  },
  {
    route: 'PATCH /dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}/status',
    method: 'PATCH',
    url: subSteps,
    body: { status: 0, note: 'again' },
    status: 503,
  },
];

/** A body that breaks the route's schema: a wrong type, a bad value, a missing field. */
const refused: { route: string; what: string; method: Method; url: string; body: unknown; message: RegExp }[] = [
  {
    route: 'POST /dags',
    what: 'a name that is a number',
    method: 'POST',
    url: '/api/v2/dags',
    body: { name: 5 },
    message: /name must be string/,
  },
  {
    route: 'POST /dags',
    what: 'no name, even with other fields',
    method: 'POST',
    url: '/api/v2/dags',
    body: { spec: SPEC, color: 'blue' },
    message: /must have required property 'name'/,
  },
  {
    route: 'PUT /dags/{fileName}/spec',
    what: 'a spec that is an object',
    method: 'PUT',
    url: '/api/v2/dags/x/spec',
    body: { spec: { steps: [] } },
    message: /spec must be string/,
  },
  {
    route: 'POST /dags/validate',
    what: 'a spec that is a list',
    method: 'POST',
    url: '/api/v2/dags/validate',
    body: { spec: ['echo'] },
    message: /spec must be string/,
  },
  {
    route: 'POST /dags/{fileName}/rename',
    what: 'a new name that is a boolean',
    method: 'POST',
    url: '/api/v2/dags/x/rename',
    body: { newFileName: true },
    message: /newFileName must be string/,
  },
  {
    route: 'POST /dags/{fileName}/start',
    what: 'singleton as text',
    method: 'POST',
    url: '/api/v2/dags/x/start',
    body: { singleton: 'false' },
    message: /singleton must be boolean/,
  },
  {
    route: 'POST /dags/{fileName}/start',
    what: 'params as an object',
    method: 'POST',
    url: '/api/v2/dags/x/start',
    body: { params: { a: 1 } },
    message: /params must be string/,
  },
  {
    route: 'POST /dags/{fileName}/enqueue',
    what: 'a queue that is a number',
    method: 'POST',
    url: '/api/v2/dags/x/enqueue',
    body: { queue: 5 },
    message: /queue must be string/,
  },
  {
    route: 'POST /dags/{fileName}/suspend',
    what: 'suspend as text',
    method: 'POST',
    url: '/api/v2/dags/x/suspend',
    body: { suspend: 'true' },
    message: /suspend must be boolean/,
  },
  {
    route: 'POST /dags/{fileName}/suspend',
    what: 'no suspend',
    method: 'POST',
    url: '/api/v2/dags/x/suspend',
    body: { reason: 'x' },
    message: /must have required property 'suspend'/,
  },
  {
    route: 'POST /dag-runs',
    what: 'no spec',
    method: 'POST',
    url: '/api/v2/dag-runs',
    body: { name: 'inline' },
    message: /must have required property 'spec'/,
  },
  {
    route: 'POST /dag-runs/enqueue',
    what: 'a dagRunId that is a number',
    method: 'POST',
    url: '/api/v2/dag-runs/enqueue',
    body: { spec: SPEC, dagRunId: 7 },
    message: /dagRunId must be string/,
  },
  {
    route: 'POST /dag-runs/{name}/{dagRunId}/retry',
    what: 'a step name that is a number',
    method: 'POST',
    url: '/api/v2/dag-runs/d/r1/retry',
    body: { stepName: 3 },
    message: /stepName must be string/,
  },
  {
    route: 'POST /dag-runs/{name}/{dagRunId}/reschedule',
    what: 'a dagRunId that is a list',
    method: 'POST',
    url: '/api/v2/dag-runs/d/r1/reschedule',
    body: { dagRunId: ['x'], singleton: false },
    message: /dagRunId must be string/,
  },
  {
    route: 'POST /dag-runs/{name}/{dagRunId}/reschedule',
    what: 'a body that is a list',
    method: 'POST',
    url: '/api/v2/dag-runs/d/r1/reschedule',
    body: [{ dagRunId: 'x' }],
    message: /body must be object/,
  },
  {
    route: 'PATCH /dag-runs/{name}/{dagRunId}/steps/{stepName}/status',
    what: 'a status over 5',
    method: 'PATCH',
    url: steps,
    body: { status: 9 },
    message: /status must be <= 5/,
  },
  {
    route: 'PATCH /dag-runs/{name}/{dagRunId}/steps/{stepName}/status',
    what: 'a status as text',
    method: 'PATCH',
    url: steps,
    body: { status: '4' },
    message: /status must be integer/,
  },
  {
    route: 'PATCH /dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}/status',
    what: 'a negative status',
    method: 'PATCH',
    url: subSteps,
    body: { status: -1, note: 'x' },
    message: /status must be >= 0/,
  },
];

describe('request bodies on every route that takes one', () => {
  // Found by schemathesis on a make dev stack: fastify refused these as malformed JSON.
  it.each([
    { what: '"__proto__"', payload: '{"spec": "steps: []", "__proto__": {"polluted": true}}' },
    {
      what: '"constructor" with a prototype',
      payload: '{"spec": "steps: []", "constructor": {"prototype": {"polluted": true}}}',
    },
  ])('ignore a field named $what like any other undefined field, and pollute nothing', async ({ payload }) => {
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v2/dags/x/spec',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([503, 'service_unavailable']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it.each(accepted)('$route accepts a body with a field it does not define', async ({ method, url, body, status }) => {
    const res = await app.inject({ method, url, payload: body });
    expect([res.statusCode, res.json<{ code?: string }>().code]).toEqual([
      status,
      status === 503 ? 'service_unavailable' : undefined,
    ]);
  });

  it.each(refused)('$route refuses $what with 400 bad_request', async ({ method, url, body, message }) => {
    const res = await app.inject({ method, url, payload: body as object });
    const answer = res.json<{ code: string; message: string }>();
    expect([res.statusCode, answer.code]).toEqual([400, 'bad_request']);
    expect(answer.message).toMatch(message);
  });

  it('are covered here, every one of them', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    }>();
    const withBody = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    const tested = new Set(accepted.map((c) => c.route.replace(' /', ' /api/v2/')));
    // `children/{id}` is the older spelling of `sub-dag-runs/{id}`: the same route twice.
    expect(withBody.filter((route) => !tested.has(route) && !route.includes('/children/'))).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('says of every request body that fields it does not define are allowed and ignored', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<string, { schema: { additionalProperties?: unknown; description?: string } }>;
            };
          }
        >
      >;
    }>();
    const schemas = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) =>
        Object.values(operation.requestBody?.content ?? {}).map(({ schema }) => ({ at: `${method} ${path}`, schema })),
      ),
    );
    expect(schemas.length).toBeGreaterThan(10);
    expect(
      schemas
        .filter(
          ({ schema }) => schema.additionalProperties !== true || schema.description?.includes('ignored') !== true,
        )
        .map((s) => s.at),
    ).toEqual([]);
  });
});

/** The routes whose body has no required field: start, enqueue, retry, reschedule. */
const OPTIONAL = [
  'POST /api/v2/dags/{fileName}/start',
  'POST /api/v2/dags/{fileName}/enqueue',
  'POST /api/v2/dag-runs/{name}/{dagRunId}/retry',
  'POST /api/v2/dag-runs/{name}/{dagRunId}/reschedule',
];

describe('a body whose fields are all optional', () => {
  it.each([
    { route: 'POST /dags/{fileName}/start', url: '/api/v2/dags/x/start' },
    { route: 'POST /dags/{fileName}/enqueue', url: '/api/v2/dags/x/enqueue' },
    // Found by schemathesis against a make dev stack: the document made the body optional in all but name.
    { route: 'POST /dag-runs/{name}/{dagRunId}/retry', url: '/api/v2/dag-runs/d/r1/retry' },
    { route: 'POST /dag-runs/{name}/{dagRunId}/reschedule', url: '/api/v2/dag-runs/d/r1/reschedule' },
  ])('$route may be left out, and the route is reached', async ({ url }) => {
    const res = await app.inject({ method: 'POST', url });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([503, 'service_unavailable']);
  });

  it.each([
    { what: 'null', payload: 'null' },
    { what: 'empty JSON', payload: '' },
  ])('is still checked when sent: $what is a 400', async ({ payload }) => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/dag-runs/d/r1/retry',
      headers: { 'content-type': 'application/json' },
      payload,
    });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
  });

  it('is required where a field is: POST /dags/{fileName}/suspend without a body is a 400', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/v2/dags/x/suspend' });
    expect([res.statusCode, res.json<{ code: string }>().code]).toEqual([400, 'bad_request']);
  });

  it('is documented as optional, and only those', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/v2/openapi.json' })).json<{
      paths: Record<string, Record<string, { requestBody?: { required: boolean } }>>;
    }>();
    const optional = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody?.required === false)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(optional.sort()).toEqual([...OPTIONAL].sort());
  });
});
