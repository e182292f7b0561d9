import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import type { KubernetesSettings } from '../../../core/dag/index.ts';
import { withPodSettings, type PodSettingsRequest } from './pod-settings.ts';

const base = (): V1Pod => ({
  metadata: { name: 'p', labels: { 'kubedag.io/step': 'build' }, annotations: { 'kubedag.io/step-name': 'build' } },
  spec: {
    restartPolicy: 'Never',
    terminationGracePeriodSeconds: 5,
    automountServiceAccountToken: false,
    nodeSelector: { zone: 'worker' },
    containers: [
      {
        name: 'step',
        image: 'busybox:1.36',
        env: [
          { name: 'DAG_NAME', value: 'd' },
          { name: 'A', value: 'dag' },
        ],
      },
    ],
  },
});

function apply(settings: KubernetesSettings | undefined, extra: Partial<PodSettingsRequest> = {}): V1Pod {
  return withPodSettings(base(), {
    settings,
    defaults: { security: 'none', user: 1000 },
    workspace: undefined,
    registrySecret: undefined,
    ...extra,
  });
}

describe('step Pod settings', () => {
  it('copies pull policy, resources, env sources and scheduling settings onto the Pod', () => {
    const pod = apply({
      imagePullPolicy: 'Always',
      resources: { requests: { cpu: '500m' }, limits: { 'nvidia.com/gpu': '1' } },
      envFrom: [{ configMapRef: { name: 'cfg' } }],
      tolerations: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }],
          },
        },
      },
      priorityClassName: 'high',
      terminationGracePeriodSeconds: 60,
      activeDeadlineSeconds: 600,
    });
    expect(pod.spec?.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      resources: { requests: { cpu: '500m' }, limits: { 'nvidia.com/gpu': '1' } },
      envFrom: [{ configMapRef: { name: 'cfg' } }],
    });
    expect(pod.spec).toMatchObject({
      priorityClassName: 'high',
      terminationGracePeriodSeconds: 60,
      activeDeadlineSeconds: 600,
      tolerations: [{ key: 'gpu' }],
      affinity: { nodeAffinity: {} },
    });
  });

  it('keeps the Pod as built when there are no settings', () => {
    const pod = apply(undefined);
    expect(pod.spec).toEqual({ ...base().spec, containers: [{ ...base().spec?.containers[0] }] });
  });

  it('puts settings variables under every variable Kubedag sets, keeping their references', () => {
    const env = apply({
      env: [
        { name: 'A', value: 'settings' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      ],
    }).spec?.containers[0]?.env;
    expect(env).toEqual([
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
      { name: 'DAG_NAME', value: 'd' },
      { name: 'A', value: 'dag' },
    ]);
  });

  it('merges nodeSelector under the workerSelector already on the Pod', () => {
    expect(apply({ nodeSelector: { zone: 'settings', disk: 'ssd' } }).spec?.nodeSelector).toEqual({
      zone: 'worker',
      disk: 'ssd',
    });
  });

  it('adds labels and annotations without overriding Kubedag own', () => {
    const pod = apply({ labels: { team: 'data', 'kubedag.io/step': 'other' }, annotations: { note: 'x' } });
    expect(pod.metadata?.labels).toEqual({ team: 'data', 'kubedag.io/step': 'build' });
    expect(pod.metadata?.annotations).toEqual({ note: 'x', 'kubedag.io/step-name': 'build' });
  });

  it('mounts the run workspace claim beside the DAG volumes', () => {
    const pod = apply(
      { volumes: [{ name: 'cache', emptyDir: {} }], volumeMounts: [{ name: 'cache', mountPath: '/cache' }] },
      { workspace: { claimName: 'run-ws', mountPath: '/workspace', size: '1Gi', accessMode: 'ReadWriteOnce' } },
    );
    expect(pod.spec?.volumes).toEqual([
      { name: 'cache', emptyDir: {} },
      { name: 'kubedag-workspace', persistentVolumeClaim: { claimName: 'run-ws' } },
    ]);
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([
      { name: 'cache', mountPath: '/cache' },
      { name: 'kubedag-workspace', mountPath: '/workspace' },
    ]);
  });

  it('refers to the DAG pull secrets and the run registry Secret', () => {
    expect(apply({ imagePullSecrets: ['regcred'] }, { registrySecret: 'run-registry' }).spec?.imagePullSecrets).toEqual(
      [{ name: 'regcred' }, { name: 'run-registry' }],
    );
  });

  it('mounts a service account token only when the DAG names the account', () => {
    expect(apply(undefined).spec?.automountServiceAccountToken).toBe(false);
    const named = apply({ serviceAccountName: 'etl' }).spec;
    expect(named?.serviceAccountName).toBe('etl');
    expect(named).not.toHaveProperty('automountServiceAccountToken');
  });

  it('sets the restricted security contexts on the Pod and its container', () => {
    const pod = withPodSettings(base(), {
      settings: undefined,
      defaults: { security: 'restricted', user: 1000 },
      workspace: undefined,
      registrySecret: undefined,
    });
    expect(pod.spec?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(pod.spec?.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    });
  });
});
