import type { V1Pod, V1PodSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podViolations } from '../../../core/policy/index.ts';
import { withPodSettings } from './pod-settings.ts';
import { podRequestOf } from '../../../test/pod-request.ts';
import { stepPod } from './step-pod.ts';
import { stepWorkingDir } from './workspace.ts';

/** The Pod of the first step of a 1.x file, built as launch-objects.ts builds it (no workspace). */
function podOf(yaml: string, security: 'none' | 'restricted' = 'none'): V1Pod {
  const request = podRequestOf(yaml);
  const workingDir = stepWorkingDir(request.dag, request.step, undefined);
  const pod = stepPod({ ...request, ...(workingDir === undefined ? {} : { workingDir }) });
  return withPodSettings(pod, {
    settings: request.step.kubernetes,
    defaults: { security, user: 1000 },
    workspace: undefined,
    registrySecret: undefined,
  });
}

/** The Pod as the policy check reads it (the operator's Pod writer checks every Pod it creates). */
const shape = (pod: V1Pod): { spec: V1PodSpec } => ({ spec: pod.spec ?? { containers: [] } });

const dockerStep = (config: string): string =>
  `steps:\n  - name: s\n    command: echo hi\n    env: [A=step, S=step]\n    executor: {type: docker, config: {image: python:3.12, ${config}}}\n`;

describe("the step Pod of a 1.x docker step's container settings", () => {
  it.each([
    { name: 'pull', config: 'pull: never', container: { image: 'python:3.12', imagePullPolicy: 'Never' } },
    { name: 'container.workingDir', config: 'container: {workingDir: /app}', container: { workingDir: '/app' } },
    {
      name: 'a numeric container.user',
      config: 'container: {user: "2000:3000"}',
      container: { securityContext: { runAsUser: 2000, runAsGroup: 3000 } },
    },
  ])('$name is set on the container', ({ config, container }) => {
    expect(podOf(dockerStep(config)).spec?.containers[0]).toMatchObject(container);
  });

  it('platform is a node selector on the os and arch labels', () => {
    expect(podOf(dockerStep('platform: linux/arm64')).spec?.nodeSelector).toEqual({
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'arm64',
    });
  });

  it("container.env reaches the container, over the step's env of the same name", () => {
    const env = podOf(dockerStep('container: {env: [A=container, B=container]}')).spec?.containers[0]?.env ?? [];
    const values = env.filter((e) => ['A', 'B', 'S'].includes(e.name)).map((e) => `${e.name}=${e.value ?? ''}`);
    expect(values).toEqual(['S=step', 'A=container', 'B=container']);
  });

  it("a root user is what the namespace's restricted policy check refuses (the operator is a deputy)", () => {
    expect(podViolations(shape(podOf(dockerStep('container: {user: "1000"}'), 'restricted')), 'restricted')).toEqual(
      [],
    );
    const root = podViolations(shape(podOf(dockerStep('container: {user: "0"}'), 'restricted')), 'restricted');
    expect(root.map((v) => v.field)).toContain('spec.containers[step].securityContext.runAsUser');
  });
});
