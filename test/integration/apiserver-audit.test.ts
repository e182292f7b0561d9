/**
 * The audit trail against the real kube-apiserver (docs/audit.md): the API server started as
 * main.ts starts it, its records going to a file (`--audit-log=file:...`), Basic users and a
 * read-only token; a sequence of writes and refusals, then the file's lines and the
 * `kubedag.io/requested-by` and `started-by` annotations the writes left on the resources.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import type { AuditRecord } from '../../apiserver/audit-record.ts';
import { openAuditLog, type AuditLog } from '../../apiserver/audit.ts';
import { registerAuth } from '../../apiserver/auth.ts';
import { parseApiConfig } from '../../apiserver/config.ts';
import { startServer, type Server } from '../../apiserver/server.ts';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { dagRunResourceName } from '../../core/resources/names.ts';
import { clients, createNamespace, deleteNamespace, kubectl } from './support.ts';

const { core, kube } = clients();
let ns = '';
let server: Server;
let audit: AuditLog;
const file = join(mkdtempSync(join(tmpdir(), 'kubedag-audit-')), 'audit.log');

const basic = (user: string, password: string): Record<string, string> => ({
  authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
});
const alice = basic('alice', 'alice-pw');
const bob = basic('bob', 'bob-pw');
const reader = { authorization: 'Bearer reader-token' };

async function call(
  method: 'POST' | 'PUT' | 'GET' | 'DELETE' | 'PATCH',
  url: string,
  headers: Record<string, string>,
  payload?: object,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await server.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
  return { status: res.statusCode, body: res.body === '' ? {} : res.json<Record<string, unknown>>() };
}

function records(): AuditRecord[] {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditRecord);
}

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-audit');
  const config = parseApiConfig(
    [
      `--namespace=${ns}`,
      `--kubeconfig=${inject('cluster').kubeconfig}`,
      '--operator-url=http://127.0.0.1:1',
      `--lease-namespace=${ns}`,
      `--audit-log=file:${file}`,
    ],
    {},
  );
  audit = openAuditLog(config.audit);
  const auth = {
    basic: [
      { username: 'alice', password: 'alice-pw' },
      { username: 'bob', password: 'bob-pw' },
    ],
    tokens: [{ token: 'reader-token', permissions: ['read' as const] }],
  };
  server = await startServer({
    config,
    version: 'test',
    audit,
    plugins: [
      (app) => {
        registerAuth(app, auth);
      },
    ],
  });
});

afterAll(async () => {
  await server.close();
  await deleteNamespace(core, ns);
});

describe('the audit trail and who asked, on the local control plane', () => {
  it('records each write with who, how, the target and the outcome, and leaves the requester on what it wrote', async () => {
    const spec = 'steps:\n  - {name: hello, command: echo hi}\n';
    expect((await call('POST', '/api/v2/dags', alice, { name: 'audited', spec })).status).toBe(201);
    expect((await call('POST', '/api/v2/dags', {}, { name: 'nobody' })).status).toBe(401);
    expect((await call('DELETE', '/api/v2/dags/audited', reader)).status).toBe(403);
    expect((await call('GET', '/api/v2/dags/audited', reader)).status).toBe(200);
    const started = await call('POST', '/api/v2/dags/audited/start', bob, { params: '' });
    expect(started.status).toBe(200);
    const dagRunId = String(started.body.dagRunId);
    expect((await call('POST', '/api/v2/dags/audited/suspend', alice, { suspend: true })).status).toBe(200);
    expect((await call('POST', '/api/v2/dags/audited/start', alice, { dagRunId })).body).toMatchObject({
      code: 'already_exists',
    });
    await audit.flush();

    const lines = records();
    expect(
      lines.map((r) => [r.operation, r.identity.user, r.identity.method, r.outcome.status, r.outcome.code ?? '']),
    ).toEqual([
      ['POST /api/v2/dags', 'alice', 'basic', 201, ''],
      ['POST /api/v2/dags', 'anonymous', 'none', 401, 'unauthorized'],
      ['DELETE /api/v2/dags/{fileName}', `token:${lines[2]?.identity.user.slice(6) ?? ''}`, 'token', 403, 'forbidden'],
      ['POST /api/v2/dags/{fileName}/start', 'bob', 'basic', 200, ''],
      ['POST /api/v2/dags/{fileName}/suspend', 'alice', 'basic', 200, ''],
      ['POST /api/v2/dags/{fileName}/start', 'alice', 'basic', 409, 'already_exists'],
    ]);
    expect(lines[2]?.identity.user).toMatch(/^token:[0-9a-f]{12}$/);
    expect(lines[0]).toMatchObject({
      kind: 'audit',
      target: { fileName: 'audited' },
      request: { fields: ['name', 'spec'], specBytes: Buffer.byteLength(spec) },
      source: { ip: '127.0.0.1' },
    });
    expect(lines[3]).toMatchObject({ target: { fileName: 'audited', dagRunId } });
    expect(new Set(lines.map((r) => r.requestId)).size).toBe(lines.length);
    const text = readFileSync(file, 'utf8');
    for (const secret of ['alice-pw', 'bob-pw', 'reader-token', 'echo hi', 'Basic '])
      expect(text).not.toContain(secret);

    const dag = await kube.dags.get(ns, 'audited');
    expect(dag.metadata?.annotations?.[ANNOTATIONS.requestedBy]).toBe('alice (basic)');
    const run = await kube.runs.get(ns, dagRunResourceName('audited', dagRunId));
    expect([
      run.metadata?.annotations?.[ANNOTATIONS.startedBy],
      run.metadata?.annotations?.[ANNOTATIONS.requestedBy],
    ]).toEqual(['bob (basic)', 'bob (basic)']);
    const yaml = await kubectl('get', 'dagrun', '-n', ns, dagRunResourceName('audited', dagRunId), '-o', 'yaml');
    expect(yaml).toContain('kubedag.io/started-by: bob (basic)');
  });

  it('names who last changed a DAG, and keeps who started a run when another stops it', async () => {
    expect((await call('PUT', '/api/v2/dags/audited/spec', bob, { spec: 'steps:\n  - echo again\n' })).body).toEqual({
      errors: [],
    });
    expect((await kube.dags.get(ns, 'audited')).metadata?.annotations?.[ANNOTATIONS.requestedBy]).toBe('bob (basic)');
    const started = await call('POST', '/api/v2/dag-runs', alice, {
      spec: 'steps:\n  - sleep 60\n',
      name: 'inline-audit',
    });
    const dagRunId = String(started.body.dagRunId);
    const name = dagRunResourceName('inline-audit', dagRunId);
    // No operator runs here: the run is made running by hand, as the operator would.
    const created = await kube.runs.get(ns, name);
    await kube.runs.replaceStatus({
      ...created,
      status: { status: 1, statusLabel: 'running', startedAt: new Date().toISOString(), nodes: [] },
    });
    await expect
      .poll(async () => (await call('POST', `/api/v2/dag-runs/inline-audit/${dagRunId}/stop`, bob)).status, {
        timeout: 10_000,
      })
      .toBe(200);
    const stopped = await kube.runs.get(ns, name);
    expect([
      stopped.spec.stop,
      stopped.metadata?.annotations?.[ANNOTATIONS.startedBy],
      stopped.metadata?.annotations?.[ANNOTATIONS.requestedBy],
    ]).toEqual([true, 'alice (basic)', 'bob (basic)']);
    await audit.flush();
    expect(
      records().filter(
        (r) => r.operation === 'POST /api/v2/dag-runs/{name}/{dagRunId}/stop' && r.outcome.status === 200,
      ),
    ).toMatchObject([{ identity: { user: 'bob' }, target: { dagName: 'inline-audit', dagRunId } }]);
  });

  it('names who edited a step status on the run, beside the edit', async () => {
    const started = await call('POST', '/api/v2/dag-runs', bob, {
      spec: 'steps:\n  - name: only\n    command: "false"\n',
      name: 'edit-audit',
    });
    const dagRunId = String(started.body.dagRunId);
    const name = dagRunResourceName('edit-audit', dagRunId);
    // Ended by hand, as the operator would end it, with the step failed.
    const created = await kube.runs.get(ns, name);
    const at = new Date().toISOString();
    await kube.runs.replaceStatus({
      ...created,
      status: {
        status: 2,
        statusLabel: 'failed',
        startedAt: at,
        finishedAt: at,
        nodes: [{ name: 'only', status: 2, statusLabel: 'failed', startedAt: at, finishedAt: at }],
      },
    });
    await expect
      .poll(
        async () =>
          (await call('PATCH', `/api/v2/dag-runs/edit-audit/${dagRunId}/steps/only/status`, alice, { status: 4 }))
            .status,
        { timeout: 10_000 },
      )
      .toBe(200);
    const edited = await kube.runs.get(ns, name);
    expect([
      edited.status?.nodes?.[0]?.statusLabel,
      edited.metadata?.annotations?.[ANNOTATIONS.startedBy],
      edited.metadata?.annotations?.[ANNOTATIONS.requestedBy],
    ]).toEqual(['succeeded', 'bob (basic)', 'alice (basic)']);
  });
});
