import type { V1Container, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describeViolations, podViolations, type PolicyLevel } from './pod-standards.ts';

/** A Pod that meets restricted, as Kubedag's step Pods are by default. */
const restrictedContainer: V1Container = {
  name: 'step',
  image: 'busybox',
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
};
const restrictedSpec: V1PodSpec = {
  securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
  volumes: [{ name: 'w', emptyDir: {} }],
  containers: [restrictedContainer],
};

const withContainer = (
  security: NonNullable<V1Container['securityContext']>,
  more: Partial<V1Container> = {},
): V1PodSpec => ({
  ...restrictedSpec,
  containers: [
    { ...restrictedContainer, ...more, securityContext: { ...restrictedContainer.securityContext, ...security } },
  ],
});

describe('the Pod Security Standards, checked before a Pod is created', () => {
  const cases: {
    name: string;
    spec: V1PodSpec;
    annotations?: Record<string, string>;
    level: PolicyLevel;
    want: string[];
  }[] = [
    { name: 'a restricted Pod passes restricted', spec: restrictedSpec, level: 'restricted', want: [] },
    {
      name: 'anything passes privileged',
      spec: { ...restrictedSpec, hostNetwork: true, volumes: [{ name: 'h', hostPath: { path: '/' } }] },
      level: 'privileged',
      want: [],
    },
    { name: 'a bare Pod passes baseline', spec: { containers: [{ name: 'c' }] }, level: 'baseline', want: [] },
    {
      name: 'a privileged container is refused under baseline',
      spec: withContainer({ privileged: true }),
      level: 'baseline',
      want: ['spec.containers[step].securityContext.privileged: true is not allowed under pod policy "baseline"'],
    },
    {
      name: 'a host path volume is refused under baseline',
      spec: { ...restrictedSpec, volumes: [{ name: 'host', hostPath: { path: '/etc' } }] },
      level: 'baseline',
      want: ['spec.volumes[host].hostPath: host paths are not allowed under pod policy "baseline"'],
    },
    {
      name: 'the host namespaces are each refused under baseline',
      spec: { ...restrictedSpec, hostNetwork: true, hostPID: true, hostIPC: true },
      level: 'baseline',
      want: [
        'spec.hostNetwork: true is not allowed under pod policy "baseline"',
        'spec.hostPID: true is not allowed under pod policy "baseline"',
        'spec.hostIPC: true is not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'host namespaces set false pass',
      spec: { ...restrictedSpec, hostNetwork: false, hostPID: false },
      level: 'restricted',
      want: [],
    },
    {
      name: 'capabilities beyond the runtime defaults are refused under baseline',
      spec: withContainer({ capabilities: { add: ['SYS_ADMIN', 'CHOWN', 'NET_ADMIN'] } }),
      level: 'baseline',
      want: [
        'spec.containers[step].securityContext.capabilities.add: SYS_ADMIN, NET_ADMIN are not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'a runtime default capability passes baseline',
      spec: withContainer({ capabilities: { add: ['CHOWN'] } }),
      level: 'baseline',
      want: [],
    },
    {
      name: 'a runtime default capability other than NET_BIND_SERVICE is refused under restricted',
      spec: withContainer({ capabilities: { drop: ['ALL'], add: ['CHOWN'] } }),
      level: 'restricted',
      want: [
        'spec.containers[step].securityContext.capabilities.add: CHOWN is not allowed (only NET_BIND_SERVICE) under pod policy "restricted"',
      ],
    },
    {
      name: 'NET_BIND_SERVICE passes restricted',
      spec: withContainer({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }),
      level: 'restricted',
      want: [],
    },
    {
      name: 'an unmasked /proc is refused under baseline',
      spec: withContainer({ procMount: 'Unmasked' }),
      level: 'baseline',
      want: ['spec.containers[step].securityContext.procMount: Unmasked is not allowed under pod policy "baseline"'],
    },
    {
      name: 'a host port is refused under baseline',
      spec: withContainer({}, { ports: [{ containerPort: 80, hostPort: 8080 }] }),
      level: 'baseline',
      want: ['spec.containers[step].ports[80].hostPort: 8080 is not allowed under pod policy "baseline"'],
    },
    {
      name: 'a container port alone passes',
      spec: withContainer({}, { ports: [{ containerPort: 80 }] }),
      level: 'restricted',
      want: [],
    },
    {
      name: 'unconfined seccomp and AppArmor are refused under baseline, at either level of the Pod',
      spec: {
        ...withContainer({ appArmorProfile: { type: 'Unconfined' } }),
        securityContext: { ...restrictedSpec.securityContext, seccompProfile: { type: 'Unconfined' } },
      },
      level: 'baseline',
      want: [
        'spec.securityContext.seccompProfile.type: Unconfined is not allowed under pod policy "baseline"',
        'spec.containers[step].securityContext.appArmorProfile.type: Unconfined is not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'an unconfined AppArmor annotation is refused under baseline',
      spec: restrictedSpec,
      annotations: { 'container.apparmor.security.beta.kubernetes.io/step': 'unconfined' },
      level: 'baseline',
      want: [
        'metadata.annotations[container.apparmor.security.beta.kubernetes.io/step]: unconfined is not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'a custom SELinux type and user are refused under baseline',
      spec: withContainer({ seLinuxOptions: { type: 'spc_t', user: 'root' } }),
      level: 'baseline',
      want: [
        'spec.containers[step].securityContext.seLinuxOptions.type: spc_t is not allowed under pod policy "baseline"',
        'spec.containers[step].securityContext.seLinuxOptions.user: must not be set under pod policy "baseline"',
      ],
    },
    {
      name: 'an unsafe sysctl is refused under baseline, a safe one passes',
      spec: {
        ...restrictedSpec,
        securityContext: {
          ...restrictedSpec.securityContext,
          sysctls: [
            { name: 'kernel.shm_rmid_forced', value: '1' },
            { name: 'kernel.msgmax', value: '1' },
          ],
        },
      },
      level: 'baseline',
      want: ['spec.securityContext.sysctls: kernel.msgmax is not a safe sysctl under pod policy "baseline"'],
    },
    {
      name: 'a Windows host process is refused under baseline',
      spec: withContainer({ windowsOptions: { hostProcess: true } }),
      level: 'baseline',
      want: [
        'spec.containers[step].securityContext.windowsOptions.hostProcess: true is not allowed under pod policy "baseline"',
      ],
    },
    {
      name: 'a root run passes baseline',
      spec: { ...restrictedSpec, securityContext: { runAsUser: 0 } },
      level: 'baseline',
      want: [],
    },
    {
      name: 'a root run is refused under restricted',
      spec: { ...restrictedSpec, securityContext: { runAsUser: 0, seccompProfile: { type: 'RuntimeDefault' } } },
      level: 'restricted',
      want: [
        'spec.securityContext.runAsUser: 0 (root) is not allowed under pod policy "restricted"',
        'spec.containers[step].securityContext.runAsNonRoot: must be true (here or in spec.securityContext) under pod policy "restricted"',
      ],
    },
    {
      name: 'a bare Pod misses every demand of restricted',
      spec: { containers: [{ name: 'c' }] },
      level: 'restricted',
      want: [
        'spec.containers[c].securityContext.allowPrivilegeEscalation: must be false under pod policy "restricted"',
        'spec.containers[c].securityContext.runAsNonRoot: must be true (here or in spec.securityContext) under pod policy "restricted"',
        'spec.containers[c].securityContext.seccompProfile.type: must be RuntimeDefault or Localhost (here or in spec.securityContext) under pod policy "restricted"',
        'spec.containers[c].securityContext.capabilities.drop: must include ALL under pod policy "restricted"',
      ],
    },
    {
      name: 'a container-level non-root and seccomp satisfy restricted without the Pod saying so',
      spec: {
        containers: [
          {
            name: 'c',
            securityContext: {
              runAsNonRoot: true,
              allowPrivilegeEscalation: false,
              seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' },
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
      },
      level: 'restricted',
      want: [],
    },
    {
      name: 'init containers are checked too',
      spec: { ...restrictedSpec, initContainers: [{ name: 'init', securityContext: { privileged: true } }] },
      level: 'baseline',
      want: ['spec.initContainers[init].securityContext.privileged: true is not allowed under pod policy "baseline"'],
    },
    {
      name: "a volume type outside restricted's list is refused under restricted only",
      spec: { ...restrictedSpec, volumes: [{ name: 'n', nfs: { server: 's', path: '/' } }] },
      level: 'restricted',
      want: ['spec.volumes[n].nfs: nfs volumes are not allowed under pod policy "restricted"'],
    },
    {
      name: 'the volume types Kubedag uses pass restricted',
      spec: {
        ...restrictedSpec,
        volumes: [
          { name: 'a', emptyDir: {} },
          { name: 'b', secret: { secretName: 's' } },
          { name: 'c', configMap: { name: 'c' } },
          { name: 'd', persistentVolumeClaim: { claimName: 'd' } },
          { name: 'e', projected: { sources: [] } },
        ],
      },
      level: 'restricted',
      want: [],
    },
  ];
  it.each(cases)('$name', ({ spec, annotations, level, want }) => {
    expect(
      describeViolations(podViolations({ spec, ...(annotations === undefined ? {} : { annotations }) }, level), level),
    ).toEqual(want);
  });

  it('says which level would allow each violation', () => {
    const spec = { ...withContainer({ privileged: true }), securityContext: { runAsUser: 0 } };
    expect(podViolations({ spec }, 'restricted').map((v) => [v.field, v.needs])).toEqual([
      ['spec.containers[step].securityContext.privileged', 'privileged'],
      ['spec.securityContext.runAsUser', 'baseline'],
      ['spec.containers[step].securityContext.runAsNonRoot', 'baseline'],
      ['spec.containers[step].securityContext.seccompProfile.type', 'baseline'],
    ]);
  });
});
