import { describe, expect, it } from 'vitest';
import type { KubernetesSettings } from '../../../core/dag/index.ts';
import { podViolations } from '../../../core/policy/index.ts';
import { securityContexts, type RunAs } from './security.ts';

const restricted = { security: 'restricted' as const, user: 1000 };

describe('step security contexts', () => {
  it('meets the restricted Pod Security Standard by default, as the operator uid', () => {
    expect(securityContexts(restricted, undefined, undefined)).toEqual({
      pod: {
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        fsGroupChangePolicy: 'OnRootMismatch',
        seccompProfile: { type: 'RuntimeDefault' },
      },
      container: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    });
  });

  it('sets nothing when the operator turns the defaults off', () => {
    expect(securityContexts({ security: 'none', user: 1000 }, undefined, undefined)).toEqual({});
  });

  it.each<{ name: string; runAs?: RunAs; settings?: KubernetesSettings; want: Record<string, unknown> }>([
    {
      name: 'the user to run as sets the uid and gid',
      runAs: { runAsUser: 2000, runAsGroup: 3000 },
      want: { pod: { runAsUser: 2000, runAsGroup: 3000, fsGroup: 1000, runAsNonRoot: true } },
    },
    {
      name: 'a pod security context merges over the defaults',
      settings: { podSecurityContext: { fsGroup: 5, seccompProfile: { type: 'Localhost', localhostProfile: 'p' } } },
      want: { pod: { fsGroup: 5, seccompProfile: { type: 'Localhost', localhostProfile: 'p' } } },
    },
    {
      name: 'a container security context replaces a default list',
      settings: { securityContext: { capabilities: { drop: ['NET_RAW'] } } },
      want: { container: { capabilities: { drop: ['NET_RAW'] } } },
    },
    {
      name: 'running as root on purpose drops runAsNonRoot',
      settings: { podSecurityContext: { runAsUser: 0 } },
      want: { pod: { runAsUser: 0 } },
    },
    {
      name: 'root in the container context also drops runAsNonRoot',
      settings: { securityContext: { runAsUser: 0 } },
      want: { container: { runAsUser: 0 } },
    },
  ])('$name', ({ runAs, settings, want }) => {
    expect(securityContexts(restricted, runAs, settings)).toMatchObject(want);
  });

  it('keeps runAsNonRoot with a root uid when the DAG asked for both', () => {
    expect(
      securityContexts(restricted, undefined, { podSecurityContext: { runAsUser: 0, runAsNonRoot: true } }).pod,
    ).toMatchObject({ runAsUser: 0, runAsNonRoot: true });
  });

  it('lets root relax the defaults without keeping runAsNonRoot', () => {
    expect(securityContexts(restricted, undefined, { podSecurityContext: { runAsUser: 0 } }).pod).not.toHaveProperty(
      'runAsNonRoot',
    );
  });

  // Every Pod Kubedag makes (step, container, prepare, notify, telemetry) takes its contexts from here.
  it("gives Kubedag's own Pods contexts that pass the pod policy checker at restricted, and with step-security none still baseline", () => {
    const podOf = (contexts: ReturnType<typeof securityContexts>) => ({
      spec: {
        securityContext: contexts.pod,
        volumes: [
          { name: 'w', emptyDir: {} },
          { name: 's', secret: { secretName: 's' } },
        ],
        containers: [{ name: 'step', securityContext: contexts.container }],
      },
    });
    expect(podViolations(podOf(securityContexts(restricted, undefined, undefined)), 'restricted')).toEqual([]);
    expect(podViolations(podOf(securityContexts(restricted, { runAsUser: 2000 }, undefined)), 'restricted')).toEqual(
      [],
    );
    expect(
      podViolations(podOf(securityContexts({ security: 'none', user: 1000 }, undefined, undefined)), 'baseline'),
    ).toEqual([]);
    expect(
      podViolations(podOf(securityContexts({ security: 'none', user: 1000 }, undefined, undefined)), 'restricted'),
    ).not.toEqual([]);
  });
});
