import { beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../../test/apiserver-app.ts';
import { UNSUPPORTED_FIELDS, unsupportedFieldProblem } from './unsupported-fields.ts';

const start = UNSUPPORTED_FIELDS['POST /dags/:fileName/start'] ?? [];
const enqueue = UNSUPPORTED_FIELDS['POST /dags/:fileName/enqueue'] ?? [];
const retry = UNSUPPORTED_FIELDS['POST /dag-runs/:name/:dagRunId/retry'] ?? [];
const reschedule = UNSUPPORTED_FIELDS['POST /dag-runs/:name/:dagRunId/reschedule'] ?? [];

describe('unsupportedFieldProblem', () => {
  it.each([
    { name: 'no such field', fields: start, body: { params: 'X=1' }, want: undefined },
    { name: 'an empty label list', fields: start, body: { labels: [], tags: [] }, want: undefined },
    { name: 'a blank profile (run without one)', fields: start, body: { profile: ' ' }, want: undefined },
    { name: 'noReuse, always honoured', fields: start, body: { noReuse: true }, want: undefined },
    {
      name: 'labels',
      fields: start,
      body: { labels: ['team=a'] },
      want: "labels is not supported: Kubedag's runs have no labels of their own",
    },
    {
      name: 'tags, their deprecated alias',
      fields: start,
      body: { tags: ['a'] },
      want: "tags is not supported: Kubedag's runs have no labels of their own",
    },
    {
      name: 'a profile name',
      fields: start,
      body: { profile: 'gpu' },
      want: 'profile is not supported: Kubedag has no runtime profiles',
    },
    { name: 'singleton false on enqueue', fields: enqueue, body: { singleton: false }, want: undefined },
    {
      name: 'singleton true on enqueue',
      fields: enqueue,
      body: { singleton: true },
      want: 'singleton is not supported: enqueue does not check for a running or queued run of the DAG',
    },
    {
      name: 'includeDownstream true on retry',
      fields: retry,
      body: { stepName: 's', includeDownstream: true },
      want: 'includeDownstream is not supported: a retry of one step leaves the steps after it as they are',
    },
    {
      name: 'a subDAGRunId on retry',
      fields: retry,
      body: { stepName: 's', subDAGRunId: 'c1' },
      want: 'subDAGRunId is not supported: a step of a sub-run is retried through the sub-run itself',
    },
    {
      name: 'useCurrentDagFile true on reschedule',
      fields: reschedule,
      body: { useCurrentDagFile: true },
      want: "useCurrentDagFile is not supported: a rescheduled run uses the run's stored definition",
    },
    {
      name: 'useCurrentDagFile false on reschedule',
      fields: reschedule,
      body: { useCurrentDagFile: false },
      want: undefined,
    },
    { name: 'no body', fields: reschedule, body: undefined, want: undefined },
  ])('$name: $want', ({ fields, body, want }) => {
    expect(unsupportedFieldProblem(fields, body)).toBe(want);
  });
});

describe('the fields under /api/v1 (the app without a cluster, whose handlers answer 503)', () => {
  const app = testApp();
  type Body = { properties: Record<string, unknown> };
  type Document = {
    paths: Record<string, { post?: { requestBody: { content: { 'application/json': { schema: Body } } } } }>;
  };
  let v1: Document;
  let v2: Document;
  beforeAll(async () => {
    v1 = (await app.inject({ url: '/api/v1/openapi.json' })).json();
    v2 = (await app.inject({ url: '/api/v2/openapi.json' })).json();
  }, 120_000);
  const bodyKeys = (document: Document, path: string): string[] =>
    Object.keys(document.paths[path]?.post?.requestBody.content['application/json'].schema.properties ?? {});

  it('are documented on the v1 body and not on the v2 one', () => {
    expect(bodyKeys(v1, '/api/v1/dags/{fileName}/start')).toEqual(
      expect.arrayContaining(['labels', 'tags', 'profile']),
    );
    expect(bodyKeys(v1, '/api/v1/dag-runs/{name}/{dagRunId}/retry')).toEqual(
      expect.arrayContaining(['includeDownstream', 'subDAGRunId']),
    );
    expect(bodyKeys(v2, '/api/v2/dags/{fileName}/start')).not.toContain('labels');
  });

  it('are refused with 400 bad_request when they ask for something, before the handler runs', async () => {
    const refused = await app.inject({ method: 'POST', url: '/api/v1/dags/etl/start', payload: { labels: ['a'] } });
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      { code: 'bad_request', message: "labels is not supported: Kubedag's runs have no labels of their own" },
    ]);
    const sync = await app.inject({
      method: 'POST',
      url: '/api/v1/dags/etl/start-sync',
      payload: { timeout: 5, profile: 'gpu' },
    });
    expect(sync.statusCode).toBe(400);
  });

  it('pass when they ask for nothing, and /api/v2 ignores them as it ignores any field it does not define', async () => {
    const empty = await app.inject({ method: 'POST', url: '/api/v1/dags/etl/start', payload: { labels: [] } });
    expect(empty.statusCode).toBe(503);
    const v2Start = await app.inject({ method: 'POST', url: '/api/v2/dags/etl/start', payload: { labels: ['a'] } });
    expect(v2Start.statusCode).toBe(503);
  });
});
