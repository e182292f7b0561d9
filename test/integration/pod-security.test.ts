import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCode } from '../../core/kube/errors.ts';
import { pod } from '../builders/pod.ts';
import { clients, deleteNamespace, finished, kubectl, waitFor, waitForPod } from './support.ts';

const { core } = clients();
const ns = `restricted-${randomBytes(3).toString('hex')}`;

beforeAll(async () => {
  await core.createNamespace({
    body: { metadata: { name: ns, labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } },
  });
  await waitFor(
    `service account in ${ns}`,
    async () => (await core.readNamespacedServiceAccount({ name: 'default', namespace: ns })).metadata !== undefined,
    30_000,
  );
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

/** The restricted profile's demands, as a step Pod would meet them. */
const compliant = pod('compliant')
  .podSecurity({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } })
  .security({ allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } })
  .mount({ name: 'data', emptyDir: {} }, '/data');

describe('Pod Security admission, enforced by the real kube-apiserver', () => {
  it('rejects a Pod that breaks the restricted profile', async () => {
    const error = await core.createNamespacedPod({ namespace: ns, body: pod('as-root').shell('id -u').build() }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(statusCode(error)).toBe(403);
    const message = (JSON.parse(String((error as { body?: unknown }).body)) as { message: string }).message;
    expect(message).toMatch(
      /^pods "as-root" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/,
    );
  });

  it('admits a compliant Pod, which the node agent runs to Succeeded as uid 1000, writing into an emptyDir and its working directory', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: compliant
        .shell('id -u; echo x > /data/file && echo volume-ok; echo y > out.txt && echo workdir-ok')
        .build(),
    });
    const done = await waitForPod(core, { namespace: ns, name: 'compliant' }, 'to finish', finished);
    expect([done.status?.phase, await kubectl('logs', '-n', ns, 'compliant')]).toEqual([
      'Succeeded',
      '1000\nvolume-ok\nworkdir-ok\n',
    ]);
  });
});
