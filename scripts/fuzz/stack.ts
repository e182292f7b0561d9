/**
 * What schemathesis is pointed at: a namespace of its own on a running control plane and the
 * operator and the API server (the real `main.ts` of each, as processes) serving it, in one of
 * two profiles. `fuzz`: Bearer authentication on (so the 401 paths are exercised), a few
 * harmless DAGs seeded and one run with a sub-run, artifacts and waiting steps (seeded-run.ts). `dev`: the two programs with the flags `make dev` gives them
 * (cluster/dev.ts), no authentication, no DAGs; the fuzz profile's differences once hid
 * disagreements between the document and the server that a `make dev` stack showed
 * (docs/decisions/2026-11-28-api-document-agreement.md). Either way steps really run, but only
 * the commands the seeded DAGs and POST /dags's default use: an admission policy refuses any
 * other step Pod in the namespace, so no fuzzed spec can run a command on this machine.
 * stop() removes all of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdmissionregistrationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { freePort, waitFor } from '../../cluster/processes.ts';
import { EXECUTOR_ENV } from '../../core/runner/spec.ts';
import { DEFAULT_DAG_YAML } from '../../apiserver/routes/dags.ts';
import { devProgramArgs } from '../../cluster/dev-settings.ts';
import { chartStepExecRole } from '../../cluster/step-exec-role.ts';
import { ARTIFACT_COMMAND, seedRun, type SeededRun } from './seeded-run.ts';

const root = join(import.meta.dirname, '../..');

/** The DAGs schemathesis finds in place: quick, slow (so that some runs are running), queued. */
export const SEED_DAGS: Readonly<Record<string, string>> = {
  'fuzz-hello': DEFAULT_DAG_YAML,
  'fuzz-slow': 'maxActiveRuns: 2\nsteps:\n  - name: wait\n    command: sleep 2\n',
  'fuzz-queued': 'queue: fuzz\nsteps:\n  - name: wait\n    command: sleep 2\n',
};

/** The only step commands a Pod in the namespace may run: the seeds' and the default DAG's. */
const ALLOWED_COMMANDS = ['echo hello', 'sleep 2', ARTIFACT_COMMAND];

/** `fuzz`: authentication on and seeded DAGs; `dev`: as `make dev` runs the programs. */
export type StackProfile = 'fuzz' | 'dev';

export interface FuzzStack {
  readonly namespace: string;
  /** The API server's origin, e.g. http://127.0.0.1:41234. */
  readonly origin: string;
  /** The Bearer token the API server wants; undefined when it checks no credentials (dev). */
  readonly token?: string;
  /** The run with a sub-run, artifacts and waiting steps (fuzz profile only). */
  readonly seeded?: SeededRun;
  /** What the operator and the API server printed. */
  readonly output: () => string;
  stop(): Promise<void>;
}

export interface FuzzStackOptions {
  readonly kubeconfig: string;
  readonly log?: (line: string) => void;
  /** `fuzz` by default. */
  readonly profile?: StackProfile;
}

interface Child {
  readonly process: ChildProcess;
  readonly output: () => string;
}

/** A Kubedag program as a process, its KUBEDAG_* settings only those given (not this shell's). */
function start(program: string, args: readonly string[], env: Record<string, string>): Child {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('KUBEDAG_')));
  const child = spawn(process.execPath, [join(root, program), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...inherited, ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { process: child, output: () => output };
}

function stopChild(child: Child | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (child === undefined || child.process.exitCode !== null || child.process.signalCode !== null) {
      resolve();
      return;
    }
    child.process.once('exit', () => {
      resolve();
    });
    child.process.kill('SIGTERM');
  });
}

/**
 * The policy that keeps fuzzed DAGs from running anything: a step Pod in the namespace must run
 * one of ALLOWED_COMMANDS and nothing else a step can bring (a script, preconditions, an
 * executor, a repeat condition, init containers). Anything else is refused at admission, and
 * its run fails; schemathesis tests the API, not what a step does.
 */
async function guard(kc: KubeConfig, name: string, namespace: string): Promise<void> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  const forbidden = JSON.stringify(['KUBEDAG_SCRIPT', EXECUTOR_ENV, 'KUBEDAG_REPEAT_CONDITION']);
  const expression = [
    '!has(object.spec.initContainers)',
    `object.spec.containers.all(c, has(c.env) && c.env.exists(e, e.name == 'KUBEDAG_COMMAND' && has(e.value) && e.value in ${JSON.stringify(ALLOWED_COMMANDS)}) && c.env.all(e, !(e.name in ${forbidden}) && !e.name.startsWith('KUBEDAG_PRECONDITION_')))`,
  ].join(' && ');
  await api.createValidatingAdmissionPolicy({
    body: {
      metadata: { name },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        validations: [{ expression, message: `the API fuzz stack runs only the steps ${ALLOWED_COMMANDS.join(', ')}` }],
      },
    },
  });
  await api.createValidatingAdmissionPolicyBinding({
    body: {
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ['Deny'],
        matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } } },
      },
    },
  });
}

async function unguard(kc: KubeConfig, name: string): Promise<void> {
  const api = kc.makeApiClient(AdmissionregistrationV1Api);
  await api.deleteValidatingAdmissionPolicyBinding({ name }).catch(() => undefined);
  await api.deleteValidatingAdmissionPolicy({ name }).catch(() => undefined);
}

async function seed(origin: string, token: string | undefined): Promise<SeededRun> {
  const authorization: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  for (const [name, spec] of Object.entries(SEED_DAGS)) {
    const res = await fetch(`${origin}/api/v2/dags`, {
      method: 'POST',
      headers: { ...authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ name, spec }),
    });
    if (res.status !== 201) throw new Error(`seeding DAG ${name}: HTTP ${String(res.status)} ${await res.text()}`);
  }
  return seedRun(async (method, path, body) => {
    const res = await fetch(`${origin}${path}`, {
      method,
      headers: { ...authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  });
}

/** A copy of the kubeconfig whose current context names `namespace`: the API server's served namespace when no flag says one. */
async function kubeconfigIn(kc: KubeConfig, namespace: string, dir: string): Promise<string> {
  const copy = new KubeConfig();
  copy.loadFromString(kc.exportConfig());
  const current = copy.getCurrentContext();
  copy.contexts = copy.contexts.map((c) => (c.name === current ? { ...c, namespace } : c));
  const path = join(dir, 'kubeconfig');
  await writeFile(path, copy.exportConfig(), { mode: 0o600 });
  return path;
}

interface Programs {
  readonly operator: string[];
  readonly apiserver: string[];
  readonly apiEnv: Record<string, string>;
  readonly token?: string;
}

async function programs(
  profile: StackProfile,
  kc: KubeConfig,
  at: { kubeconfig: string; namespace: string; logDir: string; operatorPort: number; apiPort: number },
): Promise<Programs> {
  if (profile === 'dev') {
    const args = devProgramArgs({
      kubeconfig: await kubeconfigIn(kc, at.namespace, at.logDir),
      logDir: at.logDir,
      operatorPort: at.operatorPort,
      apiPort: at.apiPort,
      execRole: chartStepExecRole().metadata?.name ?? '',
    });
    // make dev's operator and API server both keep the lease in "default", the namespace served;
    // here that is the stack's own, so that the lease is not shared with anything else on the cluster.
    return { operator: [...args.operator, `--lease-namespace=${at.namespace}`], apiserver: args.apiserver, apiEnv: {} };
  }
  const token = randomBytes(24).toString('hex');
  const operatorUrl = `http://127.0.0.1:${String(at.operatorPort)}`;
  return {
    operator: [
      `--kubeconfig=${at.kubeconfig}`,
      `--namespaces=${at.namespace}`,
      `--lease-namespace=${at.namespace}`,
      `--log-dir=${at.logDir}`,
      `--http-port=${String(at.operatorPort)}`,
    ],
    apiserver: [
      `--kubeconfig=${at.kubeconfig}`,
      `--namespace=${at.namespace}`,
      `--lease-namespace=${at.namespace}`,
      `--operator-url=${operatorUrl}`,
      '--host=127.0.0.1',
      `--port=${String(at.apiPort)}`,
      `--ui-dir=${at.logDir}`,
    ],
    apiEnv: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKEN: token },
    token,
  };
}

async function answers(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined);
  await res?.body?.cancel();
  return res?.ok === true;
}

export async function startFuzzStack(options: FuzzStackOptions): Promise<FuzzStack> {
  const log = options.log ?? ((): void => undefined);
  const profile = options.profile ?? 'fuzz';
  const kc = new KubeConfig();
  kc.loadFromFile(options.kubeconfig);
  const core = kc.makeApiClient(CoreV1Api);
  const namespace = `kd-${profile}-${randomBytes(3).toString('hex')}`;
  const logDir = await mkdtemp(join(tmpdir(), 'kubedag-fuzz-logs-'));
  let operator: Child | undefined;
  let api: Child | undefined;
  const output = (): string => `--- operator\n${operator?.output() ?? ''}\n--- API server\n${api?.output() ?? ''}`;
  const stop = async (): Promise<void> => {
    await stopChild(api);
    await stopChild(operator);
    await core.deleteNamespace({ name: namespace }).catch(() => undefined);
    await unguard(kc, namespace);
    await rm(logDir, { recursive: true, force: true });
  };
  try {
    await core.createNamespace({ body: { metadata: { name: namespace } } });
    await guard(kc, namespace, namespace);
    const [operatorPort, apiPort] = [await freePort(), await freePort()];
    const run = await programs(profile, kc, {
      kubeconfig: options.kubeconfig,
      namespace,
      logDir,
      operatorPort,
      apiPort,
    });
    operator = start('operator/main.ts', run.operator, {});
    // Ready is leading (cluster/dev.ts waits for the same).
    await waitFor(
      'the operator to lead',
      () => answers(`http://127.0.0.1:${String(operatorPort)}/readyz`),
      60_000,
      100,
    );
    const origin = `http://127.0.0.1:${String(apiPort)}`;
    api = start('apiserver/main.ts', run.apiserver, run.apiEnv);
    await waitFor('the API server to be healthy', () => answers(`${origin}/api/v2/health`), 60_000, 200);
    const seeded = profile === 'fuzz' ? await seed(origin, run.token) : undefined;
    log(`${profile} stack up: namespace ${namespace}, API ${origin}`);
    return {
      namespace,
      origin,
      ...(run.token === undefined ? {} : { token: run.token }),
      ...(seeded === undefined ? {} : { seeded }),
      output,
      stop,
    };
  } catch (error) {
    const seen = output();
    await stop();
    throw new Error(`the ${profile} stack did not start: ${(error as Error).message}\n${seen.slice(-4000)}`, {
      cause: error,
    });
  }
}
