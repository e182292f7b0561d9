import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { restartProcess } from '../../cluster/controlplane.ts';
import { parseCgroupMounts, parseProcCgroup } from '../../cluster/node-agent/cgroups.ts';
import { pod } from '../builders/pod.ts';
import { clients, createNamespace, deleteNamespace, finished, kubectl, waitFor, waitForPod } from './support.ts';

const { core } = clients();
let ns = '';
const unique = randomBytes(4).toString('hex');

beforeAll(async () => {
  ns = await createNamespace(core, 'sandbox');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

async function runToEnd(body: V1Pod): Promise<{ pod: V1Pod; log: string }> {
  const name = body.metadata?.name ?? '';
  await core.createNamespacedPod({ namespace: ns, body });
  const done = await waitForPod(core, { namespace: ns, name }, 'to finish', finished);
  return { pod: done, log: await kubectl('logs', '-n', ns, name) };
}

/** The agent's directory for a Pod on its node. */
function podDir(p: V1Pod): string {
  return join(inject('cluster').dir, 'nodes', p.spec?.nodeName ?? '', 'pods', p.metadata?.uid ?? '');
}

const scratch = { name: 'scratch', emptyDir: {} };

describe('each container runs in a root of its own', () => {
  it("keeps a relative write in its own tree: not in the agent's directory, not on the host, not in another Pod", async () => {
    const file = `out-${unique}.txt`;
    const first = await runToEnd(
      pod('writer').shell(`echo data > ${file}; echo root > /kubedag-${unique}; cat ${file}; pwd`).build(),
    );
    const second = await runToEnd(
      pod('reader')
        .shell(`cat ${file} 2>/dev/null || echo missing; cat /kubedag-${unique} 2>/dev/null || echo missing`)
        .build(),
    );
    expect([first.pod.status?.phase, first.log]).toEqual(['Succeeded', 'data\n/kubedag/scratch\n']);
    expect(second.log).toBe('missing\nmissing\n');
    expect([existsSync(join(process.cwd(), file)), existsSync(`/kubedag-${unique}`)]).toEqual([false, false]);
  });

  it('creates mount points, the working directory and the termination-message file inside its root, never on the host', async () => {
    const [mountPath, workingDir, messagePath] = [
      `/srv/kubedag-${unique}/data`,
      `/opt/kubedag-${unique}/wd`,
      `/var/kubedag-${unique}/message`,
    ];
    const body = pod('no-host-dirs')
      .shell(`pwd; echo in-volume > ${mountPath}/f; cat ${mountPath}/f; echo done > ${messagePath}`)
      .mount(scratch, mountPath)
      .workingDir(workingDir)
      .build();
    (body.spec?.containers[0] ?? { name: '' }).terminationMessagePath = messagePath;
    const { pod: done, log } = await runToEnd(body);
    expect([log, done.status?.containerStatuses?.[0]?.state?.terminated?.message]).toEqual([
      `${workingDir}\nin-volume\n`,
      'done\n',
    ]);
    expect(
      [`/srv/kubedag-${unique}`, `/opt/kubedag-${unique}`, `/var/kubedag-${unique}`].filter((p) => existsSync(p)),
    ).toEqual([]);
  });

  it("writes /dev/termination-log in the container's own /dev, which has the usual devices", async () => {
    const { pod: done, log } = await runToEnd(
      pod('own-dev').shell('ls /dev; head -c 4 /dev/zero | wc -c; echo reported > /dev/termination-log').build(),
    );
    expect(log.split('\n')).toEqual(
      expect.arrayContaining([
        'fd',
        'full',
        'null',
        'ptmx',
        'pts',
        'random',
        'shm',
        'stderr',
        'stdin',
        'stdout',
        'termination-log',
        'tty',
        'urandom',
        'zero',
        '4',
      ]),
    );
    expect(done.status?.containerStatuses?.[0]?.state?.terminated?.message).toBe('reported\n');
  });

  it("hides what a host directory holds behind a volume mounted there, in that container's view only", async () => {
    const hostDir = `/var/tmp/kubedag-hidden-${unique}`;
    mkdirSync(hostDir, { recursive: true });
    writeFileSync(join(hostDir, 'host-file'), 'from the host\n');
    try {
      const covered = await runToEnd(pod('covered').shell(`ls -A ${hostDir} | wc -l`).mount(scratch, hostDir).build());
      const plain = await runToEnd(pod('uncovered').shell(`cat ${hostDir}/host-file`).build());
      expect([covered.log, plain.log, existsSync(join(hostDir, 'host-file'))]).toEqual([
        '0\n',
        'from the host\n',
        true,
      ]);
    } finally {
      rmSync(hostDir, { recursive: true, force: true });
    }
  });

  it('creates a subPath that does not exist yet inside its volume', async () => {
    const body = pod('sub-path')
      .shell('echo nested > /out/file; cat /all/a/b/file')
      .mount(scratch, '/out', { subPath: 'a/b' })
      .mount(scratch, '/all')
      .build();
    expect((await runToEnd(body)).log).toBe('nested\n');
  });
});

describe('securityContext', () => {
  it('runs the process as runAsUser and runAsGroup with fsGroup and supplementalGroups, gives the emptyDir to fsGroup, and lets it write the termination log', async () => {
    const body = pod('ids')
      .shell(
        'id -u; id -G; stat -c "%g %a" /data; touch /data/f && stat -c "%g" /data/f; touch out.txt && echo scratch-ok; echo as-4321 > /dev/termination-log',
      )
      .podSecurity({ runAsUser: 4321, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000] })
      .mount(scratch, '/data')
      .build();
    const { pod: done, log } = await runToEnd(body);
    expect([done.status?.phase, log, done.status?.containerStatuses?.[0]?.state?.terminated?.message]).toEqual([
      'Succeeded',
      '4321\n3000 2000 4000\n2000 2777\n2000\nscratch-ok\n',
      'as-4321\n',
    ]);
  });

  it("lets the container's runAsUser win over the Pod's", async () => {
    expect(
      (
        await runToEnd(
          pod('override').shell('id -u').podSecurity({ runAsUser: 4321 }).security({ runAsUser: 4322 }).build(),
        )
      ).log,
    ).toBe('4322\n');
  });

  it('refuses runAsNonRoot without a user as the kubelet does: the container waits in CreateContainerConfigError', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('non-root').shell('echo never').podSecurity({ runAsNonRoot: true }).build(),
    });
    const waiting = await waitForPod(
      core,
      { namespace: ns, name: 'non-root' },
      'to be refused',
      (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError',
    );
    expect(waiting.status?.containerStatuses?.[0]?.state?.waiting?.message).toMatch(
      /^container has runAsNonRoot and image will run as root \(pod: "non-root_sandbox-[0-9a-f]+\(.+\)", container: main\)$/,
    );
    expect(waiting.status?.phase).toBe('Pending');
  });

  it('sets no_new_privs for allowPrivilegeEscalation false and leaves no capabilities after drop ALL', async () => {
    const body = pod('no-caps')
      .shell("grep -E '^(NoNewPrivs|CapEff|CapBnd)' /proc/self/status | tr -s '\\t' ' '")
      .security({ runAsUser: 0, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })
      .build();
    expect((await runToEnd(body)).log).toBe('CapEff: 0000000000000000\nCapBnd: 0000000000000000\nNoNewPrivs: 1\n');
  });

  it("gives a root container containerd's default capabilities, not the host's", async () => {
    expect(
      (await runToEnd(pod('default-caps').shell("grep '^CapBnd' /proc/self/status | tr -s '\\t' ' '").build())).log,
    ).toBe('CapBnd: 00000000a80425fb\n');
  });

  it('makes the root and /tmp read-only for readOnlyRootFilesystem, but not volumes or the termination log', async () => {
    const script =
      'touch /x 2>/dev/null || echo root-ro; touch /tmp/x 2>/dev/null || echo tmp-ro; touch /data/x && echo volume-rw; echo msg > /dev/termination-log && echo message-rw';
    const body = pod('read-only')
      .shell(script)
      .security({ readOnlyRootFilesystem: true })
      .mount(scratch, '/data')
      .build();
    expect((await runToEnd(body)).log).toBe('root-ro\ntmp-ro\nvolume-rw\nmessage-rw\n');
  });

  it('records what it cannot enforce as Warning events on the Pod', async () => {
    const body = pod('unenforced')
      .shell('true')
      .limits({ 'ephemeral-storage': '1Gi' })
      .podSecurity({ seccompProfile: { type: 'RuntimeDefault' } })
      .build();
    await runToEnd(body);
    const fromNode = async (): Promise<string[][]> =>
      (await core.listNamespacedEvent({ namespace: ns, fieldSelector: 'involvedObject.name=unenforced' })).items
        .filter((e) => e.source?.component === 'kubelet')
        .map((e) => [e.type ?? '', e.reason ?? '']);
    await waitFor('the events', async () => (await fromNode()).length >= 2, 15_000);
    expect((await fromNode()).sort()).toEqual([
      ['Warning', 'LimitsNotEnforced'],
      ['Warning', 'SecurityNotEnforced'],
    ]);
  });
});

/** What the agent of the first node found it can limit (its first log line says). */
function agentLimits(): { memory: boolean; cpu: boolean } {
  const node = inject('cluster').nodes[0]?.name ?? '';
  const line = readFileSync(join(inject('cluster').dir, 'logs', `node-${node}.log`), 'utf8')
    .split('\n')
    .find((l) => l.includes('"container runtime"'));
  return (
    (JSON.parse(line ?? '{}') as { limits?: { memory: boolean; cpu: boolean } }).limits ?? { memory: false, cpu: false }
  );
}

describe('resource limits, where the machine lets the agent write cgroups', () => {
  const onFirstNode = { 'kubernetes.io/hostname': inject('cluster').nodes[0]?.name ?? '' };

  it.runIf(agentLimits().memory)(
    'kills a container that goes over its memory limit: OOMKilled, exit code 137',
    async () => {
      const body = pod('hungry')
        .shell('echo start; x=$(head -c 200000000 /dev/zero | tr "\\0" x); echo never')
        .limits({ memory: '32Mi' })
        .onNode(onFirstNode)
        .build();
      const { pod: done, log } = await runToEnd(body);
      expect([
        done.status?.phase,
        done.status?.containerStatuses?.[0]?.state?.terminated?.reason,
        done.status?.containerStatuses?.[0]?.state?.terminated?.exitCode,
        log,
      ]).toEqual(['Failed', 'OOMKilled', 137, 'start\n']);
    },
  );

  it.runIf(agentLimits().cpu)('gives a container its CPU limit as a CFS quota', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: pod('throttled')
        .shell('cat /proc/self/cgroup; sleep 30')
        .limits({ cpu: '250m' })
        .onNode(onFirstNode)
        .grace(0)
        .build(),
    });
    let log = '';
    await waitFor(
      'the cgroups in the log',
      async () => (log = await kubectl('logs', '-n', ns, 'throttled')) !== '',
      30_000,
    );
    const own = parseProcCgroup(log);
    const hierarchies = parseCgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
    const v1 = hierarchies.find((h) => h.version === 1 && h.controllers.includes('cpu'));
    const quota =
      v1 === undefined
        ? readFileSync(
            join(hierarchies.find((h) => h.version === 2)?.mountPoint ?? '', own.get('') ?? '', 'cpu.max'),
            'utf8',
          )
        : readFileSync(join(v1.mountPoint, own.get('cpu') ?? '', 'cpu.cfs_quota_us'), 'utf8');
    expect(quota.trim()).toBe(v1 === undefined ? '25000 100000' : '25000');
    await core.deleteNamespacedPod({ name: 'throttled', namespace: ns });
  });
});

describe('the disk of Pods', () => {
  it("frees a finished Pod's volumes and container roots, keeps its log while it exists, and removes everything once it is deleted", async () => {
    const { pod: done } = await runToEnd(
      pod('disk').shell('echo kept; echo x > /data/big').mount(scratch, '/data').build(),
    );
    const dir = podDir(done);
    await waitFor(
      'the volumes of the finished Pod to go',
      () => Promise.resolve(!existsSync(join(dir, 'volumes')) && !existsSync(join(dir, 'containers'))),
      15_000,
    );
    expect(await kubectl('logs', '-n', ns, 'disk')).toBe('kept\n');
    await core.deleteNamespacedPod({ name: 'disk', namespace: ns });
    await waitFor('the Pod directory to go', () => Promise.resolve(!existsSync(dir)), 30_000);
  });

  it('removes, when the agent starts, the directories of Pods that no longer exist, and still serves the logs of finished Pods that do', async () => {
    const node = inject('cluster').nodes[0]?.name ?? '';
    await runToEnd(pod('before-restart').shell('echo remembered').onNode({ 'kubernetes.io/hostname': node }).build());
    const stale = join(inject('cluster').dir, 'nodes', node, 'pods', `gone-${unique}`);
    mkdirSync(join(stale, 'volumes/data'), { recursive: true });
    await restartProcess(inject('cluster').dir, `node-agent ${node}`, 'SIGTERM');
    await waitFor('the stale directory to go', () => Promise.resolve(!existsSync(stale)), 30_000);
    expect(await kubectl('logs', '-n', ns, 'before-restart')).toBe('remembered\n');
  });
});
