/**
 * Manual check, not part of `make test`: Dagu v2.15.1's own web UI and CLI against Kubedag's
 * /api/v1 (issue 26's proof; docs/decisions/2026-11-29-dagu-v2-ui-proof.md). Needs a running
 * `make dev` (its .dev/dev.json names the API server) or --api. Builds Dagu once when missing
 * (scripts/dagu-v2/build.ts; Go, the Go proxy and the npm registry), writes two 2.x DAGs through
 * /api/v1, serves Dagu's UI in front of Kubedag (scripts/dagu-v2/proxy.ts), drives it in
 * headless chromium (a run to its end, then a second DAG's waiting step pushed back with an
 * input and approved: scripts/dagu-v2/approve.ts), runs Dagu's CLI through a remote context and `dagu validate` over
 * test/fixtures/dialect/*.2x.yaml, and prints one line per check. Exit 1 when a check failed.
 *
 *   node scripts/dagu-v2-proof.ts [--api=http://127.0.0.1:8080] [--token=T] [--source-git=DIR]
 *     [--screenshots=/tmp] [--keep-proxy]
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureDagu, DEFAULT_SOURCE_GIT } from './dagu-v2/build.ts';
import { remoteContext, validateFixtures } from './dagu-v2/cli.ts';
import { driveApproval } from './dagu-v2/approve.ts';
import { driveDaguUi, type Check } from './dagu-v2/drive.ts';
import { startProxy } from './dagu-v2/proxy.ts';

const ROOT = join(import.meta.dirname, '..');
const DAG = 'dagu-v2-proof';
const SPEC = `# Written in Dagu 2.x keys by scripts/dagu-v2-proof.ts.
description: Dagu v2.15.1's UI and CLI against Kubedag
type: graph
steps:
  - id: hello
    run: echo hello from kubedag; for i in 1 2 3; do echo line $i; done
  - id: wait
    run: sleep 15
    depends: [hello]
  - id: done
    run: echo finished
    depends: [wait]
`;
const APPROVE_DAG = 'dagu-v2-approve';
const TICKET = 'T-42';
const APPROVE_SPEC = `# Written in Dagu 2.x keys by scripts/dagu-v2-proof.ts: a step that waits for a person.
description: An approval step answered in Dagu v2.15.1's UI
steps:
  - id: build
    run: echo built
  - id: review
    depends: [build]
    run: echo ready for review
    approval:
      prompt: Ship this build?
      input: [TICKET]
  - id: ship
    depends: [review]
    run: echo "shipping \${TICKET}"
`;

const { values } = parseArgs({
  options: {
    api: { type: 'string' },
    token: { type: 'string' },
    'source-git': { type: 'string', default: DEFAULT_SOURCE_GIT },
    screenshots: { type: 'string', default: '/tmp' },
    'keep-proxy': { type: 'boolean', default: false },
  },
});
const log = (line: string): void => void process.stderr.write(`[dagu-v2-proof] ${line}\n`);

async function apiOrigin(): Promise<string> {
  if (values.api !== undefined) return values.api;
  const dev = JSON.parse(await readFile(join(ROOT, '.dev', 'dev.json'), 'utf8')) as { api: string };
  return dev.api;
}

function authHeaders(): Record<string, string> {
  return values.token ? { authorization: `Bearer ${values.token}` } : {};
}

/** A DAG of the proof through Dagu 2.x's create route, or its spec replaced when it exists. */
async function writeDag(api: string, name: string, spec: string): Promise<void> {
  const headers = { 'content-type': 'application/json', ...authHeaders() };
  const created = await fetch(`${api}/api/v1/dags`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name, spec }),
  });
  if (created.status === 201) return;
  const put = await fetch(`${api}/api/v1/dags/${name}/spec`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ spec }),
  });
  if (!put.ok) throw new Error(`writing ${name}: POST ${String(created.status)}, PUT ${String(put.status)}`);
}

function print(title: string, checks: readonly Check[]): void {
  process.stdout.write(`\n${title}\n`);
  for (const check of checks) process.stdout.write(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}\n`);
}

const api = await apiOrigin();
const build = await ensureDagu(values['source-git'], log);
await writeDag(api, DAG, SPEC);
await writeDag(api, APPROVE_DAG, APPROVE_SPEC);
// An earlier proof's run that still waits (or runs) would hold the DAG's one active-run slot.
for (const dag of [DAG, APPROVE_DAG])
  await fetch(`${api}/api/v1/dags/${dag}/stop-all`, { method: 'POST', headers: authHeaders() });
const proxy = await startProxy({
  assetsDir: build.assets,
  schemaFile: join(ROOT, 'schemas', 'dag.schema.json'),
  upstream: api,
  ...(values.token ? { token: values.token } : {}),
});
log(`Dagu's UI on Kubedag at ${proxy.origin}`);
const ui = await driveDaguUi({
  origin: proxy.origin,
  dag: DAG,
  expectLog: 'line 3',
  screenshotDir: values.screenshots,
});
const approval = await driveApproval({
  origin: proxy.origin,
  dag: APPROVE_DAG,
  ticket: TICKET,
  expectLog: `shipping ${TICKET}`,
  screenshotDir: values.screenshots,
});
const fixtures = (await readdir(join(ROOT, 'test/fixtures/dialect'))).filter((f) => f.endsWith('.2x.yaml')).sort();
const validate = await validateFixtures(
  build.bin,
  fixtures.map((f) => join('test/fixtures/dialect', f)),
);
const remote = await remoteContext({ bin: build.bin, api, token: values.token ?? 'dagu_kubedag', dag: DAG });
print("Dagu v2.15.1's web UI", ui.checks);
process.stdout.write(`  answers that were not 2xx: ${ui.failedAnswers.join('; ') || 'none'}\n`);
process.stdout.write(`  exceptions on the page: ${ui.pageErrors.join('; ') || 'none'}\n`);
print("Dagu v2.15.1's web UI, a waiting step", approval.checks);
process.stdout.write(`  answers that were not 2xx: ${approval.failedAnswers.join('; ') || 'none'}\n`);
process.stdout.write(`  exceptions on the page: ${approval.pageErrors.join('; ') || 'none'}\n`);
print("Dagu v2.15.1's CLI, remote context", remote);
print("Dagu v2.15.1's validate over Kubedag's 2.x fixtures", validate);
if (values['keep-proxy']) log(`the proxy keeps serving ${proxy.origin}; Ctrl-C stops it`);
else {
  proxy.server.close();
  // The UI's keep-alive and event-stream connections would hold the process open.
  proxy.server.closeAllConnections();
}
process.exitCode = [...ui.checks, ...approval.checks, ...remote, ...validate].every((c) => c.ok) ? 0 : 1;
