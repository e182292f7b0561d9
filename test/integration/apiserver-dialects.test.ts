/**
 * A DAG file written in Dagu 2.x's dialect, stored and read back through both APIs on a real
 * kube-apiserver (issue 26): the spec text is returned as it was written, by /api/v1 and
 * /api/v2 alike; the DAG resource keeps every 2.x key (the CRD prunes none); the parsed `dag`
 * objects take each API's own shapes (v1: the abort handler, labels, commands; v2: cancel).
 * docs/decisions/2026-11-29-dagu-2x-convert.md, "What the API returns".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { ContractClient, startApi } from './api-support.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { core, kube } = clients();
let ns: string;
let server: Server;
let v1: ContractClient;
let v2: ContractClient;

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-dialects');
  server = await startApi(ns);
  v1 = new ContractClient(server.app);
  await v1.load('/api/v1/openapi.json');
  v2 = new ContractClient(server.app);
  await v2.load('/api/v2/openapi.json');
});

afterAll(async () => {
  await server.close();
  await deleteNamespace(core, ns);
});

const TWO_X = `# written for Dagu 2.x
labels: [ops]
timeout_sec: 60
params:
  - {name: NAME, type: string, default: world}
handler_on:
  abort: {run: echo aborted}
steps:
  - name: say
    run: echo hello \${params.NAME}
    retry_policy: {limit: 2, interval_sec: 1}
`;

interface Step {
  name: string;
  commands?: { command: string; args: string[] }[];
}

describe('a Dagu 2.x file through /api/v1 and /api/v2', () => {
  it('is stored as written and its spec is returned byte for byte by both APIs', async () => {
    expect((await v1.call('POST', '/api/v1/dags', { name: 'twox', spec: TWO_X })).status).toBe(201);
    expect(((await v1.call('GET', '/api/v1/dags/twox/spec')).body as { spec: string }).spec).toBe(TWO_X);
    expect(((await v2.call('GET', '/api/v2/dags/twox/spec')).body as { spec: string }).spec).toBe(TWO_X);
    const spec = (await kube.dags.get(ns, 'twox')).spec;
    expect(spec).toEqual({
      labels: ['ops'],
      timeout_sec: 60,
      params: [{ name: 'NAME', type: 'string', default: 'world' }],
      handler_on: { abort: { run: 'echo aborted' } },
      steps: [{ name: 'say', run: 'echo hello ${params.NAME}', retry_policy: { limit: 2, interval_sec: 1 } }],
    });
  });

  it("is read in each API's own shapes: v1's abort handler and labels, v2's cancel handler", async () => {
    const one = (
      (await v1.call('GET', '/api/v1/dags/twox')).body as {
        dag: { labels: string[]; steps: Step[]; handlerOn: Record<string, Step> };
      }
    ).dag;
    expect([one.labels, Object.keys(one.handlerOn), one.steps[0]?.commands]).toEqual([
      ['ops'],
      ['abort'],
      [{ command: 'echo', args: ['hello', '${NAME}'] }],
    ]);
    const two = (
      (await v2.call('GET', '/api/v2/dags/twox')).body as { dag: { tags: string[]; handlerOn: Record<string, Step> } }
    ).dag;
    expect([two.tags, Object.keys(two.handlerOn)]).toEqual([['ops'], ['cancel']]);
  });

  it('validates a 2.x file through both APIs, and refuses a file that mixes the dialects', async () => {
    for (const [client, prefix] of [
      [v1, '/api/v1'],
      [v2, '/api/v2'],
    ] as const) {
      expect((await client.call('POST', `${prefix}/dags/validate`, { spec: TWO_X, name: 'twox' })).body).toMatchObject({
        valid: true,
        errors: [],
      });
      const mixed = (
        await client.call('POST', `${prefix}/dags/validate`, { spec: `${TWO_X}maxActiveRuns: 1\n`, name: 'twox' })
      ).body as { valid: boolean; errors: string[] };
      expect([mixed.valid, mixed.errors[0]]).toEqual([
        false,
        expect.stringContaining('"maxActiveRuns" is a Dagu 1.x key'),
      ]);
    }
  });
});
