/**
 * schemathesis against the served OpenAPI document, bounded for CI: every check, every phase
 * (examples, coverage, fuzzing, stateful), a fixed seed, on the suite's control plane with the
 * operator running steps, twice: on the fuzz stack (authentication on, seeded DAGs) and on the
 * programs as `make dev` runs them (no authentication, no DAGs), which found disagreements the
 * first did not. One stack at a time: make dev's operator watches every namespace, so it
 * would also act on the other stack's. `make api-fuzz` is the longer run on a cluster of its own.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { runSchemathesis, type FuzzResult } from '../../scripts/fuzz/schemathesis.ts';
import { DEFAULT_DAG_YAML } from '../../apiserver/routes/dags.ts';
import { startFuzzStack, type FuzzStack, type StackProfile } from '../../scripts/fuzz/stack.ts';
import { reportStatuses } from '../../scripts/fuzz/figures.ts';
import { ARTIFACT_COMMAND } from '../../scripts/fuzz/seeded-run.ts';
import { clients, waitFor } from './support.ts';

/** The stack of the `describe` being run. */
let stack: FuzzStack;

/** Starts the profile's stack before the block's tests and stops it after them. */
function onStack(profile: StackProfile): void {
  beforeAll(async () => {
    stack = await startFuzzStack({ kubeconfig: inject('cluster').kubeconfig, profile });
  }, 180_000);
  afterAll(async () => {
    await stack.stop();
  });
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${stack.origin}/api/v2${path}`, {
    method,
    headers: {
      ...(stack.token === undefined ? {} : { authorization: `Bearer ${stack.token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The run's status once it has finished. */
async function finished(dag: string, dagRunId: string): Promise<{ statusLabel: string }> {
  let details: { statusLabel: string; finishedAt: string } | undefined;
  await waitFor(
    `run ${dagRunId} of ${dag} to finish`,
    async () => {
      details = ((await api('GET', `/dag-runs/${dag}/${dagRunId}`)).body as { dagRunDetails?: typeof details })
        .dagRunDetails;
      return details?.finishedAt !== undefined && details.finishedAt !== '';
    },
    60_000,
    250,
  );
  return details as { statusLabel: string };
}

/** schemathesis with 10 cases per operation and phase against the block's stack and one API's document: no failure. */
function schemathesisFindsNothing(api: 'v1' | 'v2' = 'v2'): void {
  let result: FuzzResult | undefined;

  afterAll(async () => {
    // The reports (MBs of requests) go; a failing run's output is printed below.
    if (result !== undefined) await rm(result.reportDir, { recursive: true, force: true });
  });

  it(`schemathesis finds no failure with every check in every phase on /api/${api}`, async () => {
    const run = await runSchemathesis({
      origin: stack.origin,
      api,
      ...(stack.token === undefined ? {} : { token: stack.token }),
      ...(stack.seeded === undefined ? {} : { seeded: stack.seeded }),
      seed: 1,
      maxExamples: 10,
    });
    result = run;
    if (run.exitCode !== 0) console.error(run.output.slice(-20_000));
    expect(run.exitCode).toBe(0);
    // The JUnit report agrees: test cases ran, none failed or erred.
    expect(run.junit).toMatch(/<testsuite [^>]*tests="[1-9]/);
    expect(run.junit).toMatch(/<testsuite [^>]*failures="0"[^>]*>/);
    expect(run.junit).toMatch(/<testsuite [^>]*errors="0"[^>]*>/);
  }, 900_000);

  it(`schemathesis ran all four phases on every operation of /api/${api}`, () => {
    const output = result?.output ?? '';
    for (const phase of ['Examples', 'Coverage', 'Fuzzing', 'Stateful'])
      expect(output).toMatch(new RegExp(`✅ +${phase} \\(in`));
    expect(output).toMatch(/Operations: +(\d+) selected \/ \1 total/);
  });

  // The seeded run (scripts/fuzz/seeded-run.ts) is what gets these past 404; before it they never were.
  if (api === 'v1')
    it("schemathesis got 2xx from the seeded run's sub-run, artifact, download and approval operations", async () => {
      const statuses = await reportStatuses(join(result?.reportDir ?? '', 'events.ndjson'));
      const run = 'GET /api/v1/dag-runs/{name}/{dagRunId}';
      const reached = [
        `${run}/sub-dag-runs/{subDAGRunId}`,
        `${run}/sub-dag-runs/{subDAGRunId}/artifacts/download`,
        `${run}/artifacts/preview`,
        `${run}/steps/{stepName}/log/download`,
        'POST /api/v1/dag-runs/{name}/{dagRunId}/steps/{stepName}/approve',
      ].map((operation) => [operation, (statuses[operation]?.['2xx'] ?? 0) > 0]);
      expect(reached).toEqual(reached.map(([operation]) => [operation, true]));
    });
}

describe('the fuzz stack', () => {
  onStack('fuzz');

  it("runs its seeds' steps", async () => {
    const started = await api('POST', '/dags/fuzz-hello/start', {});
    const { dagRunId } = started.body as { dagRunId: string };
    expect((await finished('fuzz-hello', dagRunId)).statusLabel).toBe('succeeded');
  });

  it('answers the log of a running step that has printed nothing as empty, not a 500 (found by the fuzz run)', async () => {
    const { dagRunId } = (await api('POST', '/dags/fuzz-slow/start', {})).body as { dagRunId: string };
    await waitFor(
      'the step to run',
      async () => {
        const details = (
          (await api('GET', `/dag-runs/fuzz-slow/${dagRunId}`)).body as {
            dagRunDetails?: { nodes: { statusLabel: string }[] };
          }
        ).dagRunDetails;
        return details?.nodes[0]?.statusLabel === 'running';
      },
      30_000,
      50,
    );
    const log = await api('GET', `/dag-runs/fuzz-slow/${dagRunId}/steps/wait/log`);
    expect([log.status, (log.body as { content?: string }).content]).toEqual([200, '']);
  });

  // Dry runs: admission decides as for a real create, and nothing is made.
  it.each([
    { name: 'a seeded command is admitted', env: [{ name: 'KUBEDAG_COMMAND', value: 'echo hello' }], admitted: true },
    {
      name: "the seeded run's artifact command is admitted",
      env: [{ name: 'KUBEDAG_COMMAND', value: ARTIFACT_COMMAND }],
      admitted: true,
    },
    { name: 'any other command is refused', env: [{ name: 'KUBEDAG_COMMAND', value: 'echo other' }], admitted: false },
    {
      name: 'a seeded command with a script is refused',
      env: [
        { name: 'KUBEDAG_COMMAND', value: 'echo hello' },
        { name: 'KUBEDAG_SCRIPT', value: 'echo other' },
      ],
      admitted: false,
    },
    {
      name: 'a seeded command with a precondition is refused',
      env: [
        { name: 'KUBEDAG_COMMAND', value: 'sleep 2' },
        { name: 'KUBEDAG_PRECONDITION_0', value: 'echo other' },
      ],
      admitted: false,
    },
    { name: "a Pod that runs its image's entrypoint is refused", env: [], admitted: false },
  ])('admits step Pods by their command: $name', async ({ env, admitted }) => {
    const body = {
      metadata: { name: 'probe' },
      spec: { containers: [{ name: 'step', image: 'any', command: ['/bin/sh', '-c', 'true'], env }] },
    };
    const outcome = await clients()
      .core.createNamespacedPod({ namespace: stack.namespace, body, dryRun: 'All' })
      .then(
        () => 'admitted',
        (error: unknown) => String((error as { body?: unknown }).body ?? error),
      );
    if (admitted) expect(outcome).toBe('admitted');
    else expect(outcome).toContain('the API fuzz stack runs only the steps');
  });

  schemathesisFindsNothing();
  // Dagu 2.x's /api/v1 from the same handlers (docs/decisions/2026-11-29-api-v1.md).
  schemathesisFindsNothing('v1');
});

describe('the make dev stack', () => {
  onStack('dev');

  // The longest DAG name with the longest run id: the run's object name is derived (hashed) from
  // both, and label values from the id, so nothing Kubernetes limits to 63 characters gets them as they are.
  it.each([
    { name: '64 letters', dagRunId: 'R'.repeat(64) },
    { name: '63 characters that are no label value', dagRunId: `-${'_'.repeat(61)}-` },
  ])(
    'starts an inline run whose id is $name under a 40-character DAG name, and finds it by that id',
    async ({ dagRunId }) => {
      const name = `long-${dagRunId.length.toString()}-${dagRunId.slice(0, 1) === '-' ? 'dash' : 'letter'}`.padEnd(
        40,
        'x',
      );
      const started = await api('POST', '/dag-runs', { spec: DEFAULT_DAG_YAML, name, dagRunId });
      expect([started.status, started.body]).toEqual([200, { dagRunId }]);
      expect((await finished(name, dagRunId)).statusLabel).toBe('succeeded');
    },
  );

  it('refuses a run id of 65 characters with 400, as the document says', async () => {
    const refused = await api('POST', '/dag-runs', {
      spec: DEFAULT_DAG_YAML,
      name: 'too-long-id',
      dagRunId: 'r'.repeat(65),
    });
    expect([refused.status, (refused.body as { code: string }).code]).toEqual([400, 'bad_request']);
  });

  schemathesisFindsNothing();
});
