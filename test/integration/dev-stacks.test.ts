/**
 * `make dev` stacks side by side: two `node cluster/cli.ts dev` runs (what `make dev` runs),
 * each with its own directory and ports from the environment, each with a cluster of its own.
 * Both serve, a component that dies is told in one line with its log and started again, a
 * DAG-level container runs (the cluster has the chart's step exec role), a third run on a
 * taken directory is refused, and Ctrl-C stops everything a stack started. Binaries and the
 * step runner are cached by the suite's own cluster, so nothing is built here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readState } from '../../cluster/controlplane.ts';
import { freePort, isAlive, waitFor } from '../../cluster/processes.ts';
import { readDevState, type DevState } from '../../cluster/stack.ts';

const root = join(import.meta.dirname, '../..');
const cli = join(root, 'cluster/cli.ts');

interface Stack {
  readonly dir: string;
  readonly apiPort: number;
  readonly operatorPort: number;
  readonly child: ChildProcess;
  /** What it said on stderr, line by line: its summary. */
  readonly lines: string[];
  readonly exited: Promise<number | null>;
}

function run(
  args: readonly string[],
  env: Record<string, string>,
): { child: ChildProcess; lines: string[]; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  let pending = '';
  child.stderr.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const parts = pending.split('\n');
    pending = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      resolve(code);
    }),
  );
  return { child, lines, exited };
}

async function startStack(): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), 'kubedag-dev-'));
  const [apiPort, operatorPort] = [await freePort(), await freePort()];
  const started = run(['dev', '--nodes=kubedag-node-1', '--quiet'], {
    KUBEDAG_DEV_DIR: dir,
    KUBEDAG_API_PORT: String(apiPort),
    KUBEDAG_OPERATOR_PORT: String(operatorPort),
  });
  return { dir, apiPort, operatorPort, ...started };
}

async function ready(stack: Stack): Promise<void> {
  let ended = false;
  void stack.exited.then(() => (ended = true));
  await waitFor(
    `the stack in ${stack.dir} to say it is ready`,
    () => {
      if (ended) throw new Error(`the stack in ${stack.dir} ended: ${stack.lines.join('\n')}`);
      return Promise.resolve(stack.lines.some((l) => l.startsWith('ready in ')));
    },
    280_000,
    250,
  );
}

const status = async (url: string): Promise<[number, string]> => {
  const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
  return [response.status, (await response.text()).trim()];
};

const stacks: Stack[] = [];
const devStates: DevState[] = [];

beforeAll(async () => {
  stacks.push(await startStack(), await startStack());
  await Promise.all(stacks.map((s) => ready(s)));
  for (const stack of stacks) {
    const state = await readDevState(stack.dir);
    if (state === undefined) throw new Error(`no dev.json in ${stack.dir}`);
    devStates.push(state);
  }
}, 300_000);

afterAll(async () => {
  for (const stack of stacks) {
    if (isAlive(stack.child.pid ?? -1)) stack.child.kill('SIGTERM');
    await stack.exited;
    // Whatever a failed run left: the same stop `make cluster-down` makes.
    await run(['down'], { KUBEDAG_DEV_DIR: stack.dir }).exited;
    await rm(stack.dir, { recursive: true, force: true });
  }
}, 180_000);

describe('make dev stacks side by side', () => {
  it('each serve the API and the operator on the ports they were given, on clusters of their own', async () => {
    const [a, b] = stacks as [Stack, Stack];
    for (const stack of [a, b]) {
      expect(stack.lines.some((l) => l.includes(`http://127.0.0.1:${String(stack.apiPort)}/api/v2`))).toBe(true);
      expect(
        stack.lines.some((l) =>
          l.trim().startsWith(`operator            http://127.0.0.1:${String(stack.operatorPort)}`),
        ),
      ).toBe(true);
      expect(await status(`http://127.0.0.1:${String(stack.apiPort)}/api/v2/health`)).toEqual([
        200,
        expect.stringContaining('healthy') as unknown,
      ]);
      expect(await status(`http://127.0.0.1:${String(stack.operatorPort)}/readyz`)).toEqual([200, 'leader']);
    }
    expect(devStates[0]?.kubeApiserver).not.toBe(devStates[1]?.kubeApiserver);
  });

  it('refuse a second make dev in a directory whose stack runs, saying how to start another', async () => {
    const again = run(['dev'], { KUBEDAG_DEV_DIR: stacks[0]?.dir ?? '' });
    expect(await again.exited).toBe(1);
    expect(again.lines).toEqual([
      expect.stringMatching(
        /^error: a make dev stack already runs in .* start another in its own directory with KUBEDAG_DEV_DIR=<dir>/,
      ) as unknown,
    ]);
  });

  it('tell in one line that a component was killed, with its log, start it again as its Deployment would, and leave the other stack alone', async () => {
    const [a, b] = stacks as [Stack, Stack];
    const operator = devStates[0]?.components.find((c) => c.name === 'operator');
    if (operator === undefined) throw new Error('no operator in dev.json');
    process.kill(operator.pid, 'SIGKILL');
    const log = join(a.dir, 'operator.log');
    await waitFor(
      'the line about the operator',
      () => Promise.resolve(a.lines.some((l) => l.startsWith('✗ operator'))),
      20_000,
    );
    const told = a.lines.filter((l) => l.startsWith('✗'));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(
      new RegExp(
        `^✗ operator was killed by SIGKILL; last log line: ".+" \\(log: ${log.replaceAll('/', '\\/')}\\); restart 1 in 1 s$`,
      ),
    );
    await waitFor(
      'the operator to be started again',
      () => Promise.resolve(a.lines.some((l) => l.startsWith('↻ operator'))),
      20_000,
    );
    const again = (await readDevState(a.dir))?.components.find((c) => c.name === 'operator');
    expect(a.lines.filter((l) => l.startsWith('↻'))).toEqual([
      `↻ operator started again (restart 1, pid ${String(again?.pid)})`,
    ]);
    expect([again?.pid !== operator.pid, isAlive(again?.pid ?? -1)]).toEqual([true, true]);
    await waitFor(
      'the new operator to lead',
      async () =>
        (await status(`http://127.0.0.1:${String(a.operatorPort)}/readyz`).catch(() => [0, ''])).join(' ') ===
        '200 leader',
      60_000,
      250,
    );
    expect(b.lines.filter((l) => l.startsWith('✗') || l.startsWith('↻'))).toEqual([]);
    expect(await status(`http://127.0.0.1:${String(b.operatorPort)}/readyz`)).toEqual([200, 'leader']);
  });

  it('run a DAG-level container, whose steps exec into it with the step exec ClusterRole the chart makes', async () => {
    const api = `http://127.0.0.1:${String(stacks[0]?.apiPort)}/api/v2`;
    // As in Dagu, a container step's command runs without a shell: the redirect needs sh -c.
    const mark = `/var/tmp/dev-stack-${String(process.pid)}-${String(Date.now())}`;
    const spec = `name: in-container\ncontainer: {image: busybox}\nsteps:\n  - {name: write, command: "sh -c 'echo inside > ${mark}'"}\n  - {name: read, command: cat ${mark}}\n`;
    const started = await fetch(`${api}/dag-runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ spec }),
    });
    const { dagRunId } = (await started.json()) as { dagRunId: string };
    expect([started.status, dagRunId]).toEqual([200, expect.any(String) as unknown]);
    let details:
      { statusLabel: string; finishedAt?: string; nodes: { statusLabel: string; error?: string }[] } | undefined;
    await waitFor(
      'the run to finish',
      async () => {
        details = (
          (await (await fetch(`${api}/dag-runs/in-container/${dagRunId}`)).json()) as { dagRunDetails?: typeof details }
        ).dagRunDetails;
        return details?.finishedAt !== undefined && details.finishedAt !== '';
      },
      90_000,
      500,
    );
    expect([details?.statusLabel, details?.nodes.map((n) => [n.statusLabel, n.error ?? ''])]).toEqual([
      'succeeded',
      [
        ['succeeded', ''],
        ['succeeded', ''],
      ],
    ]);
    const log = (await (await fetch(`${api}/dag-runs/in-container/${dagRunId}/steps/read/log`)).json()) as {
      content: string;
    };
    expect(log.content).toBe('inside');
  });

  it('stop everything a stack started on Ctrl-C', async () => {
    const [a, b] = stacks as [Stack, Stack];
    const clusters = await Promise.all([a, b].map((s) => readState(join(s.dir, 'cluster'))));
    const restarted = await Promise.all([a, b].map((s) => readDevState(s.dir)));
    const pids = [
      ...clusters.flatMap((c) => c?.processes.map((p) => p.pid) ?? []),
      ...[...devStates, ...restarted].flatMap((d) => d?.components.map((c) => c.pid) ?? []),
    ];
    expect(pids.length).toBeGreaterThan(10);
    a.child.kill('SIGINT');
    b.child.kill('SIGINT');
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    expect(pids.filter((pid) => isAlive(pid))).toEqual([]);
    expect(await Promise.all([a, b].map((s) => readDevState(s.dir)))).toEqual([undefined, undefined]);
    // The killed operator was the only component that ended before Ctrl-C.
    expect(a.lines.filter((l) => l.startsWith('✗'))).toHaveLength(1);
  }, 120_000);
});

describe('a component whose port is taken', () => {
  const taken = async (): Promise<{ port: number; close: () => void }> => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, resolve));
    const address = server.address();
    return { port: typeof address === 'object' && address !== null ? address.port : 0, close: () => server.close() };
  };
  const cases = [
    {
      name: 'the operator',
      script: 'operator/main.ts',
      flag: '--http-port',
      setting: '--http-port or KUBEDAG_HTTP_PORT',
    },
    { name: 'the API server', script: 'apiserver/main.ts', flag: '--port', setting: '--port or KUBEDAG_API_PORT' },
  ];
  for (const c of cases) {
    it(`stops ${c.name} with one line that names the port and the setting that moves it`, async () => {
      const port = await taken();
      try {
        const child = spawn(
          process.execPath,
          [
            join(root, c.script),
            `--kubeconfig=${inject('cluster').kubeconfig}`,
            `${c.flag}=${String(port.port)}`,
            '--log-format=json',
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
        const lines = output
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as { level: number; msg: string });
        expect(code).toBe(1);
        expect(lines.filter((l) => l.level >= 50)).toEqual([
          expect.objectContaining({
            level: 60,
            msg: `cannot start: cannot listen on port ${String(port.port)}: it is already in use (by another program or another Kubedag); choose another with ${c.setting}`,
          }),
        ]);
      } finally {
        port.close();
      }
    });
  }
});
