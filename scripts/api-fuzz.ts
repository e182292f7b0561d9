/**
 * `make api-fuzz`: schemathesis with every check and phase against the API server on a fresh
 * local control plane of its own (never `make dev`'s): operator and API server in a namespace
 * of their own (scripts/fuzz/stack.ts), then everything stopped and removed. Exits 1 on any
 * failure. Flags: --max-examples=N (default 50), --seed=N (default 1), --phases=a,b,
 * --stack=fuzz|dev (default fuzz: authentication on, seeded DAGs; dev: the programs as `make dev`
 * runs them), --api=v2|v1 (default v2: which served document is run, Dagu 1.24's or 2.x's),
 * --report-dir=DIR (kept; by default a temporary one, printed, and removed when the run passed),
 * --operations=REGEX (only the operations whose `METHOD /path` matches).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureBinaries } from '../cluster/binaries.ts';
import { DEFAULT_NODES, startCluster, stopCluster } from '../cluster/cluster.ts';
import { reportFigures, reportStatuses } from '../scripts/fuzz/figures.ts';
import { PHASES, runSchemathesis, schemathesisBinary, type Phase } from '../scripts/fuzz/schemathesis.ts';
import { startFuzzStack, type StackProfile } from '../scripts/fuzz/stack.ts';

const { values } = parseArgs({
  options: {
    'max-examples': { type: 'string', default: '50' },
    seed: { type: 'string', default: '1' },
    phases: { type: 'string', default: PHASES.join(',') },
    stack: { type: 'string', default: 'fuzz' },
    api: { type: 'string', default: 'v2' },
    'report-dir': { type: 'string' },
    operations: { type: 'string' },
  },
});
const phases = values.phases.split(',') as Phase[];
const unknown = phases.filter((p) => !(PHASES as readonly string[]).includes(p));
if (unknown.length > 0) throw new Error(`unknown phases: ${unknown.join(', ')} (known: ${PHASES.join(', ')})`);
if (values.stack !== 'fuzz' && values.stack !== 'dev')
  throw new Error(`unknown stack "${values.stack}" (known: fuzz, dev)`);
const profile: StackProfile = values.stack;
if (values.api !== 'v1' && values.api !== 'v2') throw new Error(`unknown api "${values.api}" (known: v1, v2)`);
const api: 'v1' | 'v2' = values.api;

const log = (line: string): void => void process.stderr.write(`[api-fuzz] ${line}\n`);
// Installed first: a missing Python should fail before a cluster is started for nothing.
log(`schemathesis: ${await schemathesisBinary()}`);

/**
 * Which operations got past refusals to their work: the number with a 2xx answer, and with
 * --operations each selected operation's answers by status class.
 */
async function logStatuses(events: string): Promise<void> {
  const statuses = await reportStatuses(events).catch(() => ({}));
  const selected = new RegExp(values.operations ?? '^(GET|POST|PUT|PATCH|DELETE) ');
  const operations = Object.entries(statuses).filter(([operation]) => selected.test(operation));
  const answered = operations.filter(([, classes]) => (classes['2xx'] ?? 0) > 0);
  log(`operations answered 2xx at least once: ${String(answered.length)}`);
  if (values.operations !== undefined)
    for (const [operation, classes] of operations.sort(([a], [b]) => a.localeCompare(b)))
      log(`${operation}: ${JSON.stringify(classes)}`);
}

/** The stack on a running cluster, schemathesis against it, the stack removed; schemathesis's exit code. */
async function fuzz(kubeconfig: string): Promise<number> {
  const stack = await startFuzzStack({ kubeconfig, log, profile });
  try {
    const result = await runSchemathesis({
      origin: stack.origin,
      api,
      ...(stack.token === undefined ? {} : { token: stack.token }),
      ...(stack.seeded === undefined ? {} : { seeded: stack.seeded }),
      ...(values.operations === undefined ? {} : { operations: values.operations }),
      seed: Number(values.seed),
      maxExamples: Number(values['max-examples']),
      phases,
      ...(values['report-dir'] === undefined ? {} : { reportDir: values['report-dir'] }),
      onLine: (line) => void process.stdout.write(`${line}\n`),
    });
    log(
      `schemathesis exited ${String(result.exitCode)} after ${result.seconds.toFixed(0)} s; report in ${result.reportDir}`,
    );
    const figures = await reportFigures(join(result.reportDir, 'events.ndjson')).catch(() => ({}));
    for (const [phase, { scenarios, cases }] of Object.entries(figures))
      log(`${phase}: ${String(cases)} test cases in ${String(scenarios)} scenarios`);
    await logStatuses(join(result.reportDir, 'events.ndjson'));
    // A passing run's reports (tens of MB of requests) go, unless asked for; a failing one's stay.
    if (result.exitCode === 0 && values['report-dir'] === undefined)
      await rm(result.reportDir, { recursive: true, force: true });
    return result.exitCode;
  } finally {
    await stack.stop();
  }
}

const binaries = await ensureBinaries({ log });
const dir = await mkdtemp(join(tmpdir(), 'kubedag-fuzz-'));
try {
  const cluster = await startCluster({ dir, binaries, nodes: DEFAULT_NODES, log });
  let exitCode: number;
  try {
    exitCode = await fuzz(cluster.kubeconfig);
  } finally {
    await stopCluster(cluster);
  }
  process.exitCode = exitCode;
} finally {
  await rm(dir, { recursive: true, force: true });
}
// Connections the Kubernetes client keeps alive would hold the process open.
process.exit(process.exitCode);
