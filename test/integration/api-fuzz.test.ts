/**
 * schemathesis against the served OpenAPI document, bounded for CI: every check, every phase
 * (examples, coverage, fuzzing, stateful), a fixed seed, on the suite's control plane with the
 * operator running steps. `make api-fuzz` is the longer run on a cluster of its own.
 */
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { runSchemathesis, type FuzzResult } from '../fuzz/schemathesis.ts';
import { startFuzzStack, type FuzzStack } from '../fuzz/stack.ts';
import { clients, waitFor } from './support.ts';

let stack: FuzzStack;

beforeAll(async () => {
  stack = await startFuzzStack({ kubeconfig: inject('cluster').kubeconfig });
}, 180_000);

let reportDir: string | undefined;

afterAll(async () => {
  await stack.stop();
  if (reportDir !== undefined) await rm(reportDir, { recursive: true, force: true });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.origin}/api/v2${path}`, { method, headers: { authorization: `Bearer ${stack.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The run's status once it has finished. */
async function finished(dag: string, dagRunId: string): Promise<{ statusLabel: string }> {
  let details: { statusLabel: string; finishedAt: string } | undefined;
  await waitFor(`run ${dagRunId} of ${dag} to finish`, async () => {
    details = ((await api('GET', `/dag-runs/${dag}/${dagRunId}`)).body as { dagRunDetails?: typeof details }).dagRunDetails;
    return details?.finishedAt !== undefined && details.finishedAt !== '';
  }, 60_000, 250);
  return details as { statusLabel: string };
}

describe('the fuzz stack', () => {
  it("runs its seeds' steps", async () => {
    const started = await api('POST', '/dags/fuzz-hello/start', {});
    const { dagRunId } = started.body as { dagRunId: string };
    expect((await finished('fuzz-hello', dagRunId)).statusLabel).toBe('succeeded');
  });

  it('answers the log of a running step that has printed nothing as empty, not a 500 (found by the fuzz run)', async () => {
    const { dagRunId } = (await api('POST', '/dags/fuzz-slow/start', {})).body as { dagRunId: string };
    await waitFor('the step to run', async () => {
      const details = ((await api('GET', `/dag-runs/fuzz-slow/${dagRunId}`)).body as { dagRunDetails?: { nodes: { statusLabel: string }[] } }).dagRunDetails;
      return details?.nodes[0]?.statusLabel === 'running';
    }, 30_000, 50);
    const log = await api('GET', `/dag-runs/fuzz-slow/${dagRunId}/steps/wait/log`);
    expect([log.status, (log.body as { content?: string }).content]).toEqual([200, '']);
  });

  // Dry runs: admission decides as for a real create, and nothing is made.
  it.each([
    { name: 'a seeded command is admitted', env: [{ name: 'KUBEDAG_COMMAND', value: 'echo hello' }], admitted: true },
    { name: 'any other command is refused', env: [{ name: 'KUBEDAG_COMMAND', value: 'echo other' }], admitted: false },
    { name: 'a seeded command with a script is refused', env: [{ name: 'KUBEDAG_COMMAND', value: 'echo hello' }, { name: 'KUBEDAG_SCRIPT', value: 'echo other' }], admitted: false },
    { name: 'a seeded command with a precondition is refused', env: [{ name: 'KUBEDAG_COMMAND', value: 'sleep 2' }, { name: 'KUBEDAG_PRECONDITION_0', value: 'echo other' }], admitted: false },
    { name: "a Pod that runs its image's entrypoint is refused", env: [], admitted: false },
  ])('admits step Pods by their command: $name', async ({ env, admitted }) => {
    const body = { metadata: { name: 'probe' }, spec: { containers: [{ name: 'step', image: 'any', command: ['/bin/sh', '-c', 'true'], env }] } };
    const outcome = await clients()
      .core.createNamespacedPod({ namespace: stack.namespace, body, dryRun: 'All' })
      .then(() => 'admitted', (error: unknown) => String((error as { body?: unknown }).body ?? error));
    if (admitted) expect(outcome).toBe('admitted');
    else expect(outcome).toContain('the API fuzz stack runs only the steps');
  });
});

describe('schemathesis', () => {
  let result: FuzzResult;

  it('finds no failure with every check in every phase', async () => {
    result = await runSchemathesis({ origin: stack.origin, token: stack.token, seed: 1, maxExamples: 10 });
    reportDir = result.reportDir;
    if (result.exitCode !== 0) console.error(result.output.slice(-20_000));
    expect(result.exitCode).toBe(0);
    // The JUnit report agrees: test cases ran, none failed or erred.
    expect(result.junit).toMatch(/<testsuite [^>]*tests="[1-9]/);
    expect(result.junit).toMatch(/<testsuite [^>]*failures="0"[^>]*>/);
    expect(result.junit).toMatch(/<testsuite [^>]*errors="0"[^>]*>/);
  }, 900_000);

  it('ran all four phases on every operation', () => {
    for (const phase of ['Examples', 'Coverage', 'Fuzzing', 'Stateful']) expect(result.output).toMatch(new RegExp(`✅ +${phase} \\(in`));
    expect(result.output).toMatch(/Operations: +(\d+) selected \/ \1 total/);
  });
});
