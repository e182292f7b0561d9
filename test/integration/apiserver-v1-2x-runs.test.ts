/**
 * What Dagu 2.x DAGs leave on a run, read back through /api/v1 on the local control plane, with
 * the real operator running the steps (issue 26): the values steps pick out of their streams
 * are run outputs beside the captured `output:` variables (declared outputs are not, as in
 * Dagu), and the retries of a DAG's retry_policy are the run's autoRetryCount, with its
 * autoRetryLimit. Every answer is checked against the /api/v1 document the server serves.
 */
import { describe, expect, it } from 'vitest';
import type { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { waitFor } from './support.ts';

let api: ContractClient;

interface Summary {
  dagRunId: string;
  statusLabel: string;
  finishedAt: string;
  autoRetryCount: number;
  autoRetryLimit?: number;
}

async function details(name: string, id: string): Promise<Summary> {
  return ((await api.call('GET', `/api/v1/dag-runs/${name}/${id}`)).body as { dagRunDetails: Summary }).dagRunDetails;
}

withApiStack('kd-apiv1-2x', '/api/v1/openapi.json', (stack) => {
  ({ api } = stack);
});

const PICKS = `
steps:
  - id: build
    run: |
      echo '{"image": {"tag": "1.4.2"}}'
    output:
      TAG: {from: stdout, select: .image.tag}
      CHANNEL: {value: stable}
  - id: meta
    run: "echo '{\\"arch\\": \\"amd64\\"}'"
    stdout:
      outputs: {decode: json}
  - id: say
    run: echo hello
    output: GREETING
  - id: count
    run: echo "SIZE=3" >> "$DAGU_OUTPUT_FILE"
    outputs: [{name: SIZE}]
`;

describe('/api/v1 runs of Dagu 2.x DAGs on the local control plane', () => {
  it('serves the values steps picked as run outputs, beside captured output: variables, and not the declared outputs', async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'picks', spec: PICKS })).status).toBe(201);
    await api.call('POST', '/api/v1/dags/picks/start', { dagRunId: 'p1' });
    await waitFor('run p1 to finish', async () => (await details('picks', 'p1')).finishedAt !== '', 120_000, 200);
    expect((await details('picks', 'p1')).statusLabel).toBe('succeeded');
    expect((await api.call('GET', '/api/v1/dag-runs/picks/p1/outputs')).body).toEqual({
      metadata: expect.objectContaining({ dagName: 'picks', dagRunId: 'p1', status: 'succeeded' }) as unknown,
      outputs: { TAG: '1.4.2', CHANNEL: 'stable', arch: 'amd64', GREETING: 'hello' },
    });
  });

  it('counts the retries of a DAG retry_policy in the run and its summaries', async () => {
    const spec = 'retry_policy: {limit: 1, interval_sec: 1}\nsteps:\n  - run: exit 3\n';
    expect((await api.call('POST', '/api/v1/dags', { name: 'broken', spec })).status).toBe(201);
    await api.call('POST', '/api/v1/dags/broken/start', { dagRunId: 'b1' });
    let first = '';
    await waitFor(
      'run b1 to fail a first time',
      async () => {
        const run = await details('broken', 'b1');
        first = run.finishedAt;
        return run.statusLabel === 'failed';
      },
      120_000,
      100,
    );
    await waitFor(
      'run b1 retried once by its policy, then failed again',
      async () => {
        const run = await details('broken', 'b1');
        return run.autoRetryCount === 1 && run.statusLabel === 'failed' && run.finishedAt !== first;
      },
      120_000,
      200,
    );
    const run = await details('broken', 'b1');
    expect([run.autoRetryCount, run.autoRetryLimit]).toEqual([1, 1]);
    const listed = (await api.call('GET', '/api/v1/dag-runs/broken')).body as { dagRuns: Summary[] };
    expect(listed.dagRuns.map((r) => [r.dagRunId, r.autoRetryCount, r.autoRetryLimit])).toEqual([['b1', 1, 1]]);
  });
});
