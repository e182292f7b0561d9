import { describe, expect, it } from 'vitest';
import { auditRecord, isAudited, operationOf, presented, type RequestFacts, type RouteFacts } from './audit-record.ts';

describe('isAudited', () => {
  it.each<[string, RouteFacts, boolean]>([
    ['a POST to a route that runs something', { method: 'POST', permission: 'run' }, true],
    ['a PUT of a spec', { method: 'PUT', permission: 'write' }, true],
    ['a DELETE of a DAG', { method: 'DELETE', permission: 'delete' }, true],
    ['the dequeue GET, which deletes a queued run', { method: 'GET', permission: 'run' }, true],
    ['a GET of a DAG', { method: 'GET', permission: 'read' }, false],
    ['a HEAD', { method: 'HEAD', permission: 'read' }, false],
    ['a POST to no route (a 404)', { method: 'POST' }, true],
    ['a GET to no route', { method: 'GET' }, false],
    ['a DELETE answered 405 by a read route of the path', { method: 'DELETE', permission: 'read' }, true],
    ['a route that opts out (validate only reads)', { method: 'POST', permission: 'read', audit: false }, false],
    ['a lower-case method', { method: 'patch', permission: 'run' }, true],
  ])('%s: %s', (_, route, want) => {
    expect(isAudited(route)).toBe(want);
  });
});

describe('presented', () => {
  it.each([
    [undefined, 'none'],
    ['', 'none'],
    ['Basic YTpi', 'basic'],
    ['bearer abc', 'bearer'],
    ['Negotiate xyz', 'other'],
  ] as const)('%s is %s', (header, want) => {
    expect(presented(header)).toBe(want);
  });
});

const base: RequestFacts = {
  method: 'POST',
  permission: 'run',
  route: '/api/v2/dags/:fileName/start',
  path: '/api/v2/dags/etl/start',
  params: { fileName: 'etl' },
  query: {},
  body: {},
  caller: { user: 'alice', groups: ['ops'], method: 'basic' },
  presented: 'basic',
  ip: '10.1.2.3',
  requestId: 'req-1',
  status: 200,
  durationMs: 12.34567,
};

describe('auditRecord', () => {
  it('names who, from where, what, on which target, the outcome, the request id and how long it took', () => {
    expect(auditRecord({ ...base, answeredRunId: '0193-run' })).toEqual({
      kind: 'audit',
      requestId: 'req-1',
      identity: { user: 'alice', groups: ['ops'], method: 'basic', presented: 'basic' },
      source: { ip: '10.1.2.3' },
      operation: 'POST /api/v2/dags/{fileName}/start',
      path: '/api/v2/dags/etl/start',
      target: { fileName: 'etl', dagRunId: '0193-run' },
      request: { fields: [], values: {} },
      outcome: { status: 200 },
      durationMs: 12.346,
    });
  });

  it('describes a spec by its size and digest, and params by their size, never by their text', () => {
    const spec = 'steps:\n  - echo hi\n';
    const record = auditRecord({
      ...base,
      route: '/api/v2/dag-runs',
      path: '/api/v2/dag-runs',
      params: {},
      body: { spec, params: '{"password":"hunter2"}', name: 'inline' },
      bodyBytes: 80,
    });
    expect(record.request).toEqual({
      bytes: 80,
      fields: ['name', 'params', 'spec'],
      specBytes: 19,
      specSha256: '588442140e808c9283a593a098f8eeec308e2a2a59723ddffa71c8bce844dcbc',
      paramsBytes: 22,
      values: {},
    });
    expect(JSON.stringify(record)).not.toContain('hunter2');
    expect(JSON.stringify(record)).not.toContain('echo hi');
    expect(record.target).toEqual({ dagName: 'inline' });
  });

  it('keeps the allowlisted values that say what a change was', () => {
    const record = auditRecord({ ...base, route: '/api/v2/dags/:fileName/suspend', body: { suspend: true } });
    expect(record.request.values).toEqual({ suspend: true });
    const step = auditRecord({
      ...base,
      method: 'PATCH',
      route: '/api/v2/dag-runs/:name/:dagRunId/sub-dag-runs/:subDAGRunId/steps/:stepName/status',
      params: { name: 'etl', dagRunId: 'r1', subDAGRunId: 's1', stepName: 'load' },
      body: { status: 4 },
    });
    expect([step.target, step.request.values]).toEqual([
      { dagName: 'etl', dagRunId: 'r1', subDagRunId: 's1', step: 'load' },
      { status: 4 },
    ]);
  });

  it("names the new DAG of POST /dags by the body's name, and a rename's new file name", () => {
    expect(auditRecord({ ...base, route: '/api/v2/dags', params: {}, body: { name: 'hello' } }).target).toEqual({
      fileName: 'hello',
    });
    expect(
      auditRecord({ ...base, route: '/api/v2/dags/:fileName/rename', body: { newFileName: 'bye' } }).target,
    ).toEqual({ fileName: 'etl', newFileName: 'bye' });
  });

  it("tells a retry's new run from the run in its path", () => {
    const retry = { ...base, route: '/api/v2/dag-runs/:name/:dagRunId/retry', params: { name: 'etl', dagRunId: 'r1' } };
    expect(auditRecord({ ...retry, body: { dagRunId: 'r2' } }).target).toEqual({
      dagName: 'etl',
      dagRunId: 'r1',
      newDagRunId: 'r2',
    });
    expect(auditRecord({ ...retry, body: { dagRunId: 'r1' } }).target).toEqual({ dagName: 'etl', dagRunId: 'r1' });
  });

  it('records a refusal with its code, and a request that matched no route', () => {
    const refused = auditRecord({
      ...base,
      caller: { user: 'anonymous', groups: [], method: 'none' },
      presented: 'none',
      status: 401,
      errorCode: 'unauthorized',
      body: undefined,
    });
    expect([refused.identity.user, refused.outcome]).toEqual(['anonymous', { status: 401, code: 'unauthorized' }]);
    const { route: _route, ...noRoute } = base;
    expect(
      auditRecord({ ...noRoute, path: '/api/v2/nothing', params: {}, status: 404, errorCode: 'not_found' }).operation,
    ).toBe('POST (no route)');
  });

  it('names a remote node other than local', () => {
    expect(auditRecord({ ...base, query: { remoteNode: 'eu' } }).target.remoteNode).toBe('eu');
    expect(auditRecord({ ...base, query: { remoteNode: 'local' } }).target.remoteNode).toBeUndefined();
  });

  it('cuts long text so that a record stays one bounded line', () => {
    expect(auditRecord({ ...base, body: { queue: 'q'.repeat(1000) } }).request.values.queue).toHaveLength(256);
  });
});

describe('operationOf', () => {
  it('writes path parameters as the OpenAPI document does', () => {
    expect(operationOf('PATCH', '/api/v2/dag-runs/:name/:dagRunId/steps/:stepName/status')).toBe(
      'PATCH /api/v2/dag-runs/{name}/{dagRunId}/steps/{stepName}/status',
    );
  });
});
