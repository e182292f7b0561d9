/**
 * Dagu 2.x's artifact forms on the local control plane, read back through /api/v1 (issue 26):
 * the fixture artifacts.2x.yaml keeps a step's stdout (with a value picked out of it) and its
 * stderr as run artifacts, then writes, reads and lists a file with artifact.write/read/list
 * in the step runner. The run's secret, printed into the stdout artifact, is masked in the
 * kept file as in the log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { waitFor } from './support.ts';

let api: ContractClient;

withApiStack('kd-2x-artifacts', '/api/v1/openapi.json', (stack) => {
  ({ api } = stack);
});

const SECRET = 'tok-s3cret-value';
// Where an env-provider secret comes from on Kubernetes: the DAG's Pod settings.
const SPEC = `kubernetes: {env: [{name: KUBEDAG_FIXTURE_TOKEN, value: ${SECRET}}]}\n${readFileSync(
  join(import.meta.dirname, '../fixtures/dialect/artifacts.2x.yaml'),
  'utf8',
)}`;

const RUN = '/api/v1/dag-runs/artifacts/r1';

async function stepLog(step: string): Promise<string> {
  const body = (await api.call('GET', `${RUN}/steps/${step}/log`)).body as { content?: string };
  return body.content ?? '';
}

describe('a Dagu 2.x DAG with artifact outputs and artifact.* actions', () => {
  it('keeps stdout and stderr as artifacts, secrets masked, and writes, reads and lists with the actions', async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'artifacts', spec: SPEC })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/dags/artifacts/start', { dagRunId: 'r1' })).status).toBe(200);
    await waitFor(
      'run r1 to finish',
      async () =>
        ((await api.call('GET', RUN)).body as { dagRunDetails: { finishedAt: string } }).dagRunDetails.finishedAt !==
        '',
      120_000,
      250,
    );
    const details = (await api.call('GET', RUN)).body as {
      dagRunDetails: { statusLabel: string; nodes: { step: { name: string }; statusLabel: string }[] };
    };
    expect(details.dagRunDetails.nodes.map((n) => [n.step.name, n.statusLabel])).toEqual([
      ['report', 'succeeded'],
      ['note', 'succeeded'],
      ['read', 'succeeded'],
      ['list', 'succeeded'],
    ]);
    expect(details.dagRunDetails.statusLabel).toBe('succeeded');

    // Every attempt's files are kept once its Pod has ended, which may be just after the run ends.
    await waitFor(
      'all four files archived',
      async () => {
        const list = (await api.call('GET', `${RUN}/artifacts?recursive=true`)).body as { items: unknown[] };
        return JSON.stringify(list).split('"type":"file"').length - 1 === 3;
      },
      30_000,
      250,
    );
    expect((await api.call('GET', `${RUN}/artifacts?recursive=true`)).body).toEqual({
      items: [
        {
          name: 'notes',
          path: 'notes',
          type: 'directory',
          children: [{ name: 'note.txt', path: 'notes/note.txt', type: 'file', size: 7 }],
        },
        {
          name: 'reports',
          path: 'reports',
          type: 'directory',
          children: [
            { name: 'report.err', path: 'reports/report.err', type: 'file', size: 7 },
            { name: 'report.json', path: 'reports/report.json', type: 'file', size: 34 },
          ],
        },
      ],
    });
    const download = async (path: string): Promise<string | undefined> =>
      (await api.call('GET', `${RUN}/artifacts/download?path=${path}`)).text;
    // The stdout artifact holds the secret masked, as the log does; the picked value still reads the stream.
    expect(await download('reports/report.json')).toBe('{"status":"ok","token":"*******"}\n');
    expect(await stepLog('report')).toBe('{"status":"ok","token":"*******"}');
    expect(await download('reports/report.err')).toBe('warned\n');
    expect(await download('notes/note.txt')).toBe('run r1\n');
    expect(JSON.parse(await stepLog('note'))).toEqual({
      operation: 'write',
      path: 'notes/note.txt',
      bytes: 7,
      created: true,
    });
    expect(JSON.parse(await stepLog('read'))).toMatchObject({
      operation: 'read',
      path: 'notes/note.txt',
      exists: true,
      type: 'file',
      size: 7,
      content: 'run r1\n',
    });
    const listed = JSON.parse(await stepLog('list')) as { operation: string; entries: { path: string }[] };
    expect([listed.operation, listed.entries.map((e) => e.path)]).toEqual(['list', ['notes/note.txt']]);
  });
});
