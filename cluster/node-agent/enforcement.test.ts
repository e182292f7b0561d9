import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { unenforced, type Abilities } from './enforcement.ts';

const full: Abilities = { sandbox: 'overlay', changeUser: true, cgroups: { memory: true, cpu: true } };
const bare: Abilities = { sandbox: 'overlay', changeUser: true, cgroups: { memory: false, cpu: false } };

function pod(spec: Partial<NonNullable<V1Pod['spec']>>): V1Pod {
  return { metadata: { name: 'p', namespace: 'ns', uid: 'u1' }, spec: { containers: [{ name: 'main' }], ...spec } };
}

describe('unenforced, what the node says it cannot do for a Pod', () => {
  const cases: { name: string; pod: V1Pod; abilities: Abilities; want: string[] }[] = [
    { name: 'says nothing for a Pod that asks for nothing', pod: pod({}), abilities: bare, want: [] },
    {
      name: 'names the limits of each container when no cgroup controller is writable',
      pod: pod({ containers: [{ name: 'main', resources: { limits: { cpu: '500m', memory: '64Mi' } } }] }),
      abilities: bare,
      want: ['LimitsNotEnforced: resource limits not enforced on this node: main (memory 64Mi, cpu 500m)'],
    },
    {
      name: 'says nothing of limits the cgroups enforce',
      pod: pod({ containers: [{ name: 'main', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }),
      abilities: full,
      want: [],
    },
    {
      name: 'names a RuntimeDefault seccomp profile, which setpriv cannot apply',
      pod: pod({ securityContext: { seccompProfile: { type: 'RuntimeDefault' } } }),
      abilities: full,
      want: ['SecurityNotEnforced: not enforced by the local runtime: seccompProfile RuntimeDefault'],
    },
    {
      name: 'takes an Unconfined seccomp profile as honoured',
      pod: pod({ securityContext: { seccompProfile: { type: 'Unconfined' } } }),
      abilities: full,
      want: [],
    },
    {
      name: 'says containers share the host file system when there is no sandbox, and users when the agent is not root',
      pod: pod({ securityContext: { runAsUser: 1000 } }),
      abilities: { ...bare, sandbox: 'none', changeUser: false },
      want: [
        'IsolationNotEnforced: not provided on this node: container root file systems (containers run in the host file system; volumes are not mounted at their paths); runAsUser (the agent is not root)',
      ],
    },
    {
      name: 'names memory-backed and size-limited emptyDirs',
      pod: pod({ volumes: [{ name: 'cache', emptyDir: { medium: 'Memory' } }] }),
      abilities: full,
      want: [
        'IsolationNotEnforced: not provided on this node: emptyDir medium and sizeLimit (cache: plain directories on disk)',
      ],
    },
  ];
  it.each(cases)('$name', ({ pod: p, abilities, want }) => {
    expect(unenforced(p, abilities).map((u) => `${u.reason}: ${u.message}`)).toEqual(want);
  });
});
