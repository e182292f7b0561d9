/**
 * Container start latency of the node agent (figures, not a test): from the moment the agent
 * begins to build a container's sandbox to the first instruction of the container's command
 * (`date +%s%N` prints it). Three shapes: a bare spawn (no sandbox: the floor), the sandbox of
 * a typical step Pod (a service-account token volume, the termination log, a workingDir), and
 * the same as uid 1000 with the restricted securityContext. Needs root; run with
 * `make bench-container-start`. The median of 40 starts is reported.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { systemClock } from '../core/kube/time.ts';
import { containerArgv, launch } from '../cluster/node-agent/runtime.ts';
import { planSandbox } from '../cluster/node-agent/sandbox.ts';
import { hostSubmounts, hostView, prepareSandbox, probeSandbox } from '../cluster/node-agent/sandbox-fs.ts';
import { setprivArgs, type ContainerSecurity } from '../cluster/node-agent/security.ts';

const state = mkdtempSync('/var/tmp/kubedag-start-bench-');
const mode = probeSandbox(state);
const submounts = hostSubmounts();
const token = join(state, 'token');
mkdirSync(token);
writeFileSync(join(token, 'token'), 'x');
const root: ContainerSecurity = {
  identity: { uid: 0, gid: 0, groups: [0], home: '/root' },
  capabilities: ['chown', 'dac_override', 'kill', 'setuid', 'setgid'],
  noNewPrivs: false,
  readOnlyRoot: false,
};
const restricted: ContainerSecurity = {
  identity: { uid: 1000, gid: 1000, groups: [1000, 2000], home: '/' },
  capabilities: [],
  noNewPrivs: true,
  readOnlyRoot: false,
};
const env = { PATH: '/usr/local/bin:/usr/bin:/bin' };
const argv = ['/bin/date', '+%s%N'];

/** Milliseconds from the start of the preparation to the command's first output. */
async function once(index: number, sandboxed: boolean, security: ContainerSecurity): Promise<number> {
  const layer = join(state, 'containers', String(index));
  const logPath = join(state, `${String(index)}.log`);
  const begin = BigInt(Date.now()) * 1_000_000n;
  let spawnArgv = argv;
  if (sandboxed) {
    const plan = planSandbox(
      {
        layer,
        scratch: join(state, 'scratch'),
        mounts: [
          { source: token, target: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, file: false },
        ],
        workingDir: '/work',
        terminationMessagePath: undefined,
        readOnlyRoot: false,
        hide: [state],
        submounts,
        upperOnTmpfs: mode === 'overlay-tmpfs',
        command: { name: argv[0] ?? '', searchPath: env.PATH },
      },
      hostView,
    );
    prepareSandbox(layer, plan, submounts);
    spawnArgv = containerArgv({ mode, layer, cwd: plan.cwd, setpriv: setprivArgs(security), cgroups: [] }, argv);
  }
  const container = await launch({
    argv: spawnArgv,
    env,
    cwd: sandboxed ? undefined : state,
    logPath,
    clock: systemClock,
  });
  const exit = await container.exited;
  if (exit.exitCode !== 0) throw new Error(`start ${String(index)} failed: ${readFileSync(logPath, 'utf8')}`);
  const printed = BigInt(readFileSync(logPath, 'utf8').trim().split(' ').pop() ?? '0');
  return Number(printed - begin) / 1e6;
}

async function measure(label: string, sandboxed: boolean, security: ContainerSecurity, offset: number): Promise<void> {
  const times: number[] = [];
  for (let i = 0; i < 40; i += 1) times.push(await once(offset + i, sandboxed, security));
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(58)} median ${(times[20] ?? 0).toFixed(1).padStart(6)} ms  p90 ${(times[36] ?? 0).toFixed(1).padStart(6)} ms`,
  );
}

try {
  console.log(`sandbox mode: ${mode}`);
  await measure('bare spawn (no sandbox)', false, root, 0);
  if (mode !== 'none') {
    await measure('sandbox: token volume, termination log, workingDir', true, root, 100);
    await measure('sandbox as uid 1000, no capabilities, no_new_privs', true, restricted, 200);
  }
} finally {
  rmSync(state, { recursive: true, force: true });
}
