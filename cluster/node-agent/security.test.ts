import type { V1Container, V1Pod, V1PodSecurityContext, V1SecurityContext } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  capabilities,
  containerSecurity,
  DEFAULT_CAPABILITIES,
  processIdentity,
  setprivArgs,
  type ContainerSecurity,
} from './security.ts';
import { parseImageUsers } from './users.ts';

const users = parseImageUsers(
  'root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n',
  'root:x:0:\nalice:x:1000:\ndocker:x:999:alice\n',
);

function podWith(
  podContext: V1PodSecurityContext | undefined,
  context: V1SecurityContext | undefined,
): { pod: V1Pod; container: V1Container } {
  const container: V1Container = { name: 'main', ...(context === undefined ? {} : { securityContext: context }) };
  return {
    pod: {
      metadata: { name: 'p', namespace: 'ns', uid: 'u1' },
      spec: { containers: [container], ...(podContext === undefined ? {} : { securityContext: podContext }) },
    },
    container,
  };
}

describe('processIdentity, who a container runs as', () => {
  const cases: {
    name: string;
    pod?: V1PodSecurityContext;
    container?: V1SecurityContext;
    want: { uid: number; gid: number; groups: number[]; home: string };
  }[] = [
    {
      name: 'runs as the image user, root, when nothing is asked',
      want: { uid: 0, gid: 0, groups: [0], home: '/root' },
    },
    {
      name: 'takes the primary group and member groups of a user the image knows',
      pod: { runAsUser: 1000 },
      want: { uid: 1000, gid: 1000, groups: [1000, 999], home: '/home/alice' },
    },
    {
      name: 'gives a uid the image does not know group 0 and HOME /',
      pod: { runAsUser: 4242 },
      want: { uid: 4242, gid: 0, groups: [0], home: '/' },
    },
    {
      name: "lets the container override the Pod's user and group",
      pod: { runAsUser: 1000, runAsGroup: 1000 },
      container: { runAsUser: 2000, runAsGroup: 3000 },
      want: { uid: 2000, gid: 3000, groups: [3000], home: '/' },
    },
    {
      name: 'adds fsGroup and supplementalGroups to the groups, like the kubelet',
      pod: { runAsUser: 4242, runAsGroup: 3000, fsGroup: 2000, supplementalGroups: [4000, 2000] },
      want: { uid: 4242, gid: 3000, groups: [3000, 2000, 4000], home: '/' },
    },
  ];
  it.each(cases)('$name', ({ pod, container, want }) => {
    const { pod: p, container: c } = podWith(pod, container);
    expect(processIdentity(p, c, users)).toEqual(want);
  });

  const refused: { name: string; pod?: V1PodSecurityContext; container?: V1SecurityContext; want: string }[] = [
    {
      name: 'refuses runAsNonRoot without a user, since the image user is root',
      pod: { runAsNonRoot: true },
      want: 'container has runAsNonRoot and image will run as root (pod: "p_ns(u1)", container: main)',
    },
    {
      name: 'refuses runAsNonRoot with runAsUser 0',
      container: { runAsNonRoot: true, runAsUser: 0 },
      want: 'container\'s runAsUser breaks non-root policy (pod: "p_ns(u1)", container: main)',
    },
  ];
  it.each(refused)('$name', ({ pod, container, want }) => {
    const { pod: p, container: c } = podWith(pod, container);
    expect(() => processIdentity(p, c, users)).toThrow(want);
  });

  it('accepts runAsNonRoot with a non-zero user from the Pod', () => {
    const { pod, container } = podWith({ runAsNonRoot: true, runAsUser: 1000 }, undefined);
    expect(processIdentity(pod, container, users).uid).toBe(1000);
  });
});

describe("capabilities, containerd's way", () => {
  const cases: { name: string; context?: V1SecurityContext; want: readonly string[] | 'all' }[] = [
    { name: 'gives the default set when nothing is asked', want: [...DEFAULT_CAPABILITIES].sort() },
    { name: 'gives none after drop ALL', context: { capabilities: { drop: ['ALL'] } }, want: [] },
    {
      name: 'adds after drop ALL, whatever the order in the lists',
      context: { capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
      want: ['net_bind_service'],
    },
    {
      name: 'drops one named capability from the defaults',
      context: { capabilities: { drop: ['CAP_NET_RAW'] } },
      want: DEFAULT_CAPABILITIES.filter((c) => c !== 'net_raw').sort(),
    },
    {
      name: 'gives every capability to a privileged container',
      context: { privileged: true, capabilities: { drop: ['ALL'] } },
      want: 'all',
    },
    {
      name: 'ignores names it does not know instead of failing the start',
      context: { capabilities: { drop: ['ALL'], add: ['NOT_A_CAP'] } },
      want: [],
    },
  ];
  it.each(cases)('$name', ({ context, want }) => {
    const got = capabilities({ name: 'main', ...(context === undefined ? {} : { securityContext: context }) });
    expect(got === 'all' ? got : [...got].sort()).toEqual(want);
  });
});

describe('containerSecurity and setprivArgs', () => {
  const restricted = podWith(
    { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 },
    { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
  );

  it('turns a restricted securityContext into no new privileges, no capabilities and a read-only root', () => {
    const got = containerSecurity(restricted.pod, restricted.container, users);
    expect([got.noNewPrivs, got.capabilities, got.readOnlyRoot]).toEqual([true, [], true]);
  });

  it('never sets no_new_privs on a privileged container', () => {
    const { pod, container } = podWith(undefined, { privileged: true, allowPrivilegeEscalation: false });
    expect(containerSecurity(pod, container, users).noNewPrivs).toBe(false);
  });

  const cases: { name: string; security: ContainerSecurity; want: string[] }[] = [
    {
      name: 'gives setpriv the user, groups, an empty bounding set and no_new_privs',
      security: containerSecurity(restricted.pod, restricted.container, users),
      want: [
        '--reuid=1000',
        '--regid=1000',
        '--groups=1000,999,2000',
        '--inh-caps=-all',
        '--bounding-set=-all',
        '--no-new-privs',
        '--',
      ],
    },
    {
      name: 'keeps the bounding set whole for a privileged container',
      security: {
        identity: { uid: 0, gid: 0, groups: [], home: '/root' },
        capabilities: 'all',
        noNewPrivs: false,
        readOnlyRoot: false,
      },
      want: ['--reuid=0', '--regid=0', '--clear-groups', '--inh-caps=-all', '--'],
    },
    {
      name: 'lists the capabilities that remain in the bounding set',
      security: {
        identity: { uid: 0, gid: 0, groups: [0], home: '/root' },
        capabilities: ['chown', 'kill'],
        noNewPrivs: false,
        readOnlyRoot: false,
      },
      want: ['--reuid=0', '--regid=0', '--groups=0', '--inh-caps=-all', '--bounding-set=-all,+chown,+kill', '--'],
    },
  ];
  it.each(cases)('$name', ({ security, want }) => {
    expect(setprivArgs(security)).toEqual(want);
  });
});
