/**
 * The run the fuzz stack leaves in place for the operations that need more than a DAG: a run
 * with a sub-run, artifacts (its own and its sub-run's) and steps waiting for approval (its own
 * and its sub-run's). Without one, /api/v1's sub-run, artifact, download and approval operations
 * only ever met 404 (docs/decisions/2026-11-29-api-v1.md, "Seeded run"). Its ids are fixed but
 * the sub-run's, which the operator derives; all are read back and handed to schemathesis
 * (seed-config.ts).
 */
import { waitFor } from '../../cluster/processes.ts';

/** What a step of the seeded DAGs runs to leave an artifact (the admission guard allows it). */
export const ARTIFACT_COMMAND = 'echo hello > "$DAG_RUN_ARTIFACTS_DIR/hello.txt"';

/** One waiting step per answer, so that each answer finds a step still waiting (an answer ends a wait). */
export const WAITING_STEPS = { approve: 'wait-approve', reject: 'wait-reject', 'push-back': 'wait-push-back' } as const;

const waits = Object.values(WAITING_STEPS)
  .map((name) => `  - name: ${name}\n    run: echo hello\n    approval: {prompt: Go on?}\n`)
  .join('');

/**
 * Dagu 2.x, every branch at once: a file left in DAG_RUN_ARTIFACTS_DIR, a call of a local DAG
 * that does the same and waits the same way, and the steps that wait for approval. The run stays
 * active until someone answers; what the fuzzer answers is its business.
 */
export const SEEDED_RUN_SPEC = `type: graph
artifacts: {enabled: true}
steps:
  - name: write
    run: ${ARTIFACT_COMMAND}
  - name: call
    action: dag.run
    with: {dag: fuzz-child}
${waits}---
name: fuzz-child
type: graph
artifacts: {enabled: true}
steps:
  - name: write
    run: ${ARTIFACT_COMMAND}
${waits}`;

/** The ids schemathesis is given for the seeded run. */
export interface SeededRun {
  readonly name: string;
  readonly dagRunId: string;
  readonly subDAGRunId: string;
  /** Step names of the run and its sub-run (the same in both). */
  readonly stepNames: readonly string[];
  /** The step each answer (approve, reject, push-back) is given, waiting in the run and the sub-run. */
  readonly waiting: typeof WAITING_STEPS;
  /** An artifact path both the run and the sub-run have. */
  readonly artifactPath: string;
}

const NAME = 'fuzz-parts';
const RUN_ID = 'fuzz-parts-1';

type Call = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

interface Details {
  readonly nodes?: readonly { step: { name: string }; statusLabel: string }[];
}

/** The run is ready when every wait of both runs waits and both files are kept. */
async function ready(call: Call, run: string, sub: string): Promise<boolean> {
  const waiting = async (path: string): Promise<boolean> => {
    const details = ((await call('GET', path)).body as { dagRunDetails?: Details }).dagRunDetails;
    const waitingNow = new Set(details?.nodes?.filter((n) => n.statusLabel === 'waiting').map((n) => n.step.name));
    return Object.values(WAITING_STEPS).every((name) => waitingNow.has(name));
  };
  const kept = async (path: string): Promise<boolean> => {
    const items = ((await call('GET', `${path}/artifacts`)).body as { items?: { path: string }[] }).items;
    return items?.some((i) => i.path === 'hello.txt') === true;
  };
  return (await waiting(run)) && (await waiting(sub)) && (await kept(run)) && (await kept(sub));
}

/** Creates the DAG, starts its run and waits (up to 3 min) until it is as SEEDED_RUN_SPEC says. */
export async function seedRun(call: Call): Promise<SeededRun> {
  const created = await call('POST', '/api/v1/dags', { name: NAME, spec: SEEDED_RUN_SPEC });
  if (created.status !== 201)
    throw new Error(`seeding DAG ${NAME}: HTTP ${String(created.status)} ${JSON.stringify(created.body)}`);
  const started = await call('POST', `/api/v1/dags/${NAME}/start`, { dagRunId: RUN_ID });
  if (started.status !== 200)
    throw new Error(`starting ${NAME}: HTTP ${String(started.status)} ${JSON.stringify(started.body)}`);
  const run = `/api/v1/dag-runs/${NAME}/${RUN_ID}`;
  let subDAGRunId = '';
  await waitFor(
    `the seeded run ${RUN_ID} to have its sub-run, artifacts and waiting steps`,
    async () => {
      const subRuns = (await call('GET', `${run}/sub-dag-runs`)).body as { subRuns?: { dagRunId: string }[] };
      subDAGRunId = subRuns.subRuns?.[0]?.dagRunId ?? '';
      return subDAGRunId !== '' && (await ready(call, run, `${run}/sub-dag-runs/${subDAGRunId}`));
    },
    180_000,
    500,
  );
  return {
    name: NAME,
    dagRunId: RUN_ID,
    subDAGRunId,
    stepNames: ['write', 'call', ...Object.values(WAITING_STEPS)],
    waiting: WAITING_STEPS,
    artifactPath: 'hello.txt',
  };
}
