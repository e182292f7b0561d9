import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from './audit-record.ts';
import { memoryAudit, openAuditLog, parseAuditSink } from './audit.ts';
import { testApp } from '../test/apiserver-app.ts';

const basic = (user: string, password: string): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The app with Basic users (one may only read), recording its audit trail; no cluster behind (routes that need one answer 503). */
function audited(): { app: ReturnType<typeof testApp>; records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  const app = testApp({ auth: { basic: [{ username: 'alice', password: 'pw' }] }, audit: memoryAudit(records) });
  return { app, records };
}

describe('the audit hook', () => {
  it('records a write refused for lack of credentials, with the id sent back to the caller', async () => {
    const { app, records } = audited();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/dags/etl/start',
      headers: { 'x-request-id': 'trace-42' },
      payload: {},
    });
    expect([res.statusCode, res.headers['x-request-id']]).toEqual([401, 'trace-42']);
    expect(records).toMatchObject([
      {
        kind: 'audit',
        requestId: 'trace-42',
        identity: { user: 'anonymous', method: 'none', presented: 'none' },
        operation: 'POST /api/v2/dags/{fileName}/start',
        target: { fileName: 'etl' },
        outcome: { status: 401, code: 'unauthorized' },
      },
    ]);
  });

  it('names the user of a write that got past authentication, whatever happened next', async () => {
    const { app, records } = audited();
    const res = await app.inject({
      method: 'POST',
      url: '/api/v2/dags/etl/suspend',
      headers: { authorization: basic('alice', 'pw') },
      payload: { suspend: true },
    });
    expect(res.statusCode).toBe(503);
    expect(records).toMatchObject([
      {
        identity: { user: 'alice', method: 'basic', presented: 'basic' },
        request: { values: { suspend: true } },
        outcome: { status: 503, code: 'service_unavailable' },
      },
    ]);
    expect(records[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records wrong passwords, bad bodies, unknown paths and methods a path lacks; never reads, validations or credentials', async () => {
    const { app, records } = audited();
    const auth = { authorization: basic('alice', 'pw') };
    await app.inject({ method: 'GET', url: '/api/v2/dags', headers: auth });
    await app.inject({
      method: 'POST',
      url: '/api/v2/dags/validate',
      headers: auth,
      payload: { spec: 'steps: [echo]' },
    });
    await app.inject({
      method: 'DELETE',
      url: '/api/v2/dags/etl',
      headers: { authorization: basic('alice', 'wrong') },
    });
    await app.inject({ method: 'POST', url: '/api/v2/dags', headers: auth, payload: { name: 7 } });
    await app.inject({ method: 'POST', url: '/api/v2/nowhere', headers: auth, payload: {} });
    await app.inject({ method: 'DELETE', url: '/api/v2/dags', headers: auth });
    expect(
      records.map((r) => `${r.operation} ${String(r.outcome.status)} ${r.outcome.code ?? ''} ${r.identity.user}`),
    ).toEqual([
      'DELETE /api/v2/dags/{fileName} 401 unauthorized anonymous',
      'POST /api/v2/dags 400 bad_request alice',
      'POST (no route) 404 not_found alice',
      'DELETE /api/v2/dags 405 method_not_allowed alice',
    ]);
    expect(JSON.stringify(records)).not.toMatch(/wrong|pw|YWxp/);
  });

  it('names a known user refused for lack of a permission', async () => {
    const records: AuditRecord[] = [];
    const app = testApp({
      auth: { basic: [{ username: 'reader', password: 'pw' }], basicPermissions: ['read'] },
      audit: memoryAudit(records),
    });
    const res = await app.inject({
      method: 'DELETE',
      url: '/api/v2/dags/etl',
      headers: { authorization: basic('reader', 'pw') },
    });
    expect(res.statusCode).toBe(403);
    expect(records).toMatchObject([
      { identity: { user: 'reader', method: 'basic' }, outcome: { status: 403, code: 'forbidden' } },
    ]);
  });
});

describe('the audit sinks', () => {
  it.each([
    ['off', { sink: 'off' }],
    ['stdout', { sink: 'stdout' }],
    ['stderr', { sink: 'stderr' }],
    ['file:/var/log/a.log', { sink: 'file', path: '/var/log/a.log' }],
  ])('reads %s', (text, want) => {
    expect(parseAuditSink(text)).toEqual(want);
  });

  it.each(['', 'file:', 'syslog', 'STDOUT'])('refuses "%s", naming the setting', (text) => {
    expect(() => parseAuditSink(text)).toThrow(/audit-log must be one of stdout\|stderr\|file:PATH\|off/);
  });

  it('writes each record as a JSON line of its own kind to a file', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'kubedag-audit-')), 'sub', 'audit.log');
    const log = openAuditLog({ sink: 'file', path });
    const { app } = { app: testApp({ audit: log }) };
    await app.inject({ method: 'POST', url: '/api/v2/dags/etl/stop-all', payload: {} });
    await log.flush();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toMatchObject([
      {
        kind: 'audit',
        msg: 'audit',
        component: 'apiserver',
        operation: 'POST /api/v2/dags/{fileName}/stop-all',
        identity: { user: 'anonymous', method: 'none' },
      },
    ]);
    expect(lines[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });
});
