/**
 * The real node (cluster/real-node): a kubelet on containerd and runc registers Ready, a Pod of
 * the busybox step image built here runs to Succeeded and its log is read through the API
 * server, exec reaches a running container, a `restricted` Pod runs as the Pod Security
 * Standard asks (seccomp, no capabilities, read-only root), a Pod reaches the API server through the
 * `kubernetes` Service (kube-proxy's rules) and resolves Service names (CoreDNS). Figures (node
 * Ready time, Pod start latency) go to .dev/real-node-figures.json.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NODE_NAME } from '../../cluster/real-node/config.ts';
import { STEP_IMAGE } from '../../cluster/real-node/images.ts';
import { execInContainer } from '../../step/container-exec.ts';
import { clients, createNamespace, deleteNamespace, finished, running, waitForPod } from '../integration/support.ts';

const { kc, core } = clients();
let ns = '';
const figures: Record<string, number | string> = {};

function busybox(name: string, script: string): V1Pod {
  return {
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      containers: [{ name: 'main', image: STEP_IMAGE, imagePullPolicy: 'Never', command: ['/bin/sh', '-c', script] }],
    },
  };
}

/** Creates the Pod and resolves once `check` holds, with the milliseconds it took. */
async function timed(body: V1Pod, what: string, check: (pod: V1Pod) => boolean): Promise<{ pod: V1Pod; ms: number }> {
  const started = Date.now();
  await core.createNamespacedPod({ namespace: ns, body });
  const pod = await waitForPod(core, { namespace: ns, name: body.metadata?.name ?? '' }, what, check, 90_000);
  return { pod, ms: Date.now() - started };
}

beforeAll(async () => {
  ns = await createNamespace(core, 'real-node');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
  const startup = inject('startup');
  const file = join(import.meta.dirname, '../../.dev/real-node-figures.json');
  // Other files of the suite add theirs to this run's (global-setup.ts starts the file afresh).
  const earlier = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<string, unknown>;
  const all = { ...earlier, clusterUpMs: startup.upMs, kubeletToReadyMs: startup.kubeletToReadyMs, ...figures };
  await mkdir(join(import.meta.dirname, '../../.dev'), { recursive: true });
  await writeFile(file, `${JSON.stringify(all, null, 2)}\n`);
  process.stderr.write(`[real-node] figures: ${JSON.stringify(all)}\n`);
});

describe('a real node', () => {
  it('registers Ready, running containerd and the kubelet built from the pinned modules', async () => {
    const node = await core.readNode({ name: NODE_NAME });
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.status?.nodeInfo?.containerRuntimeVersion).toMatch(/^containerd:\/\/v?2\./);
    expect(node.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\./);
    expect(node.status?.addresses?.find((a) => a.type === 'InternalIP')?.address).toBe('10.250.0.2');
  });

  it('runs a Pod of the busybox step image to Succeeded and serves its log', async () => {
    const first = await timed(busybox('hello', 'echo hello from a real node; id -u'), 'to finish', finished);
    expect(first.pod.status?.phase).toBe('Succeeded');
    figures.firstPodToSucceededMs = first.ms;
    const log = await core.readNamespacedPodLog({ namespace: ns, name: 'hello', container: 'main' });
    expect(log).toBe('hello from a real node\n0\n');
    // A second Pod: the image is unpacked and the CNI bridge exists, as on a warm node.
    const second = await timed(busybox('hello-again', 'echo again'), 'to finish', finished);
    expect(second.pod.status?.phase).toBe('Succeeded');
    figures.secondPodToSucceededMs = second.ms;
    const running = await timed(
      busybox('started', 'exec sleep 600'),
      'to run',
      (p) => p.status?.containerStatuses?.[0]?.state?.running !== undefined,
    );
    figures.podToRunningMs = running.ms;
  });

  it('execs into a running container', async () => {
    await waitForPod(core, { namespace: ns, name: 'started' }, 'to run', running);
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (d: Buffer) => chunks.push(d));
    const result = await execInContainer(
      kc,
      { namespace: ns, pod: 'started', container: 'main' },
      { command: ['sh', '-c', 'echo inside $(hostname)'], stdout: out, stderr: new PassThrough() },
    );
    expect(result.exitCode).toBe(0);
    expect(Buffer.concat(chunks).toString()).toBe('inside started\n');
  });

  it('reaches the API server through the kubernetes Service (kube-proxy)', async () => {
    const { pod } = await timed(
      busybox('service', 'nc -w 5 "$KUBERNETES_SERVICE_HOST" "$KUBERNETES_SERVICE_PORT" </dev/null && echo reached'),
      'to finish',
      finished,
    );
    const log = await core.readNamespacedPodLog({ namespace: ns, name: 'service', container: 'main' });
    expect({ phase: pod.status?.phase, log }).toEqual({ phase: 'Succeeded', log: 'reached\n' });
  });

  it('runs a restricted Pod in a namespace enforcing it: non-root, RuntimeDefault seccomp, read-only root, no capabilities, an emptyDir of its fsGroup', async () => {
    const strict = await createNamespace(core, 'rn-strict');
    try {
      await core.patchNamespace({
        name: strict,
        body: [{ op: 'add', path: '/metadata/labels/pod-security.kubernetes.io~1enforce', value: 'restricted' }],
      });
      const body = busybox(
        'strict',
        'id -u; id -G; grep -E "^(CapEff|Seccomp):" /proc/self/status; touch /work/ok && echo wrote; touch /ro 2>/dev/null || echo read-only',
      );
      body.metadata = { name: 'strict', namespace: strict };
      const spec = body.spec as NonNullable<V1Pod['spec']>;
      spec.securityContext = {
        runAsNonRoot: true,
        runAsUser: 65534,
        fsGroup: 2000,
        seccompProfile: { type: 'RuntimeDefault' },
      };
      spec.volumes = [{ name: 'work', emptyDir: {} }];
      spec.containers[0] = {
        ...spec.containers[0],
        name: 'main',
        volumeMounts: [{ name: 'work', mountPath: '/work' }],
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        },
      };
      await core.createNamespacedPod({ namespace: strict, body });
      const pod = await waitForPod(core, { namespace: strict, name: 'strict' }, 'to finish', finished, 90_000);
      const log = await core.readNamespacedPodLog({ namespace: strict, name: 'strict', container: 'main' });
      expect(pod.status?.phase, log).toBe('Succeeded');
      expect(log).toBe('65534\n65534 2000\nCapEff:\t0000000000000000\nSeccomp:\t2\nwrote\nread-only\n');
    } finally {
      await deleteNamespace(core, strict);
    }
  });

  it("resolves a Service's name through the cluster DNS (CoreDNS on the node's address)", async () => {
    const { pod } = await timed(busybox('dns', 'nslookup kubernetes.default.svc.cluster.local'), 'to finish', finished);
    const log = await core.readNamespacedPodLog({ namespace: ns, name: 'dns', container: 'main' });
    expect(pod.status?.phase, log).toBe('Succeeded');
    expect(log).toContain('10.96.0.1');
  });
});
