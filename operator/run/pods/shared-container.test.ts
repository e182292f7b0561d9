import { describe, expect, it } from 'vitest';
import { loadDag } from '../../../core/dag/index.ts';
import { sharedContainerPodName } from '../../../core/resources/names.ts';
import {
  isContainerPod,
  KEEPALIVE_COMMAND,
  sharedContainer,
  sharedContainerPod,
  type SharedContainer,
} from './shared-container.ts';

const ref = { name: 'etl-r1', namespace: 'team', uid: 'u1', dagName: 'etl', dagRunId: 'r1' };

function read(block: Record<string, unknown>, hasWorkspace = true): SharedContainer {
  const got = sharedContainer({ image: 'alpine:3', ...block }, hasWorkspace);
  if ('problems' in got) throw new Error(got.problems.join('; '));
  return got.container;
}

describe('how the DAG-level container starts', () => {
  it.each([
    { name: 'keepalive by default: a shell that idles', block: {}, want: KEEPALIVE_COMMAND },
    {
      name: 'keepalive with a command runs that command',
      block: { startup: 'keepalive', command: ['sleep', 'infinity'] },
      want: ['sleep', 'infinity'],
    },
    { name: "entrypoint leaves the image's own", block: { startup: 'entrypoint' }, want: undefined },
    {
      name: 'command runs the given words',
      block: { startup: 'command', command: ['nginx', '-g', 'daemon off;'] },
      want: ['nginx', '-g', 'daemon off;'],
    },
  ])('$name', ({ block, want }) => {
    expect(read(block).command).toEqual(want);
  });
});

describe('what the DAG-level container settings become', () => {
  it.each([
    {
      name: 'env entries become variables',
      block: { env: ['A=1', 'B=x=y'] },
      field: 'env',
      want: [
        { name: 'A', value: '1' },
        { name: 'B', value: 'x=y' },
      ],
    },
    {
      name: 'a numeric user becomes uid and gid',
      block: { user: '1000:2000' },
      field: 'user',
      want: { runAsUser: 1000, runAsGroup: 2000 },
    },
    {
      name: 'missing pulls only when absent',
      block: { pullPolicy: 'missing' },
      field: 'imagePullPolicy',
      want: 'IfNotPresent',
    },
    {
      name: 'a platform becomes the os and arch node labels',
      block: { platform: 'linux/arm64' },
      field: 'nodeSelector',
      want: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' },
    },
    {
      name: 'ports become container ports with their protocol',
      block: { ports: ['8080', '53/udp'] },
      field: 'ports',
      want: [
        { containerPort: 8080, protocol: 'TCP' },
        { containerPort: 53, protocol: 'UDP' },
      ],
    },
    {
      name: 'a relative volume is a part of the workspace and a name is a claim',
      block: { volumes: ['./data:/data', 'cache:/cache:ro'] },
      field: 'mounts',
      want: [
        { kind: 'workspace', subPath: 'data', path: '/data', readOnly: false },
        { kind: 'claim', claim: 'cache', path: '/cache', readOnly: true },
      ],
    },
    { name: 'restart policy no is Never', block: {}, field: 'restartPolicy', want: 'Never' },
    {
      name: 'restart policy unless-stopped is Always',
      block: { restartPolicy: 'unless-stopped' },
      field: 'restartPolicy',
      want: 'Always',
    },
    { name: 'the run waits for running by default', block: {}, field: 'waitFor', want: 'running' },
    {
      name: 'workDir wins over workingDir, as in Dagu',
      block: { workingDir: '/a', workDir: '/b' },
      field: 'workingDir',
      want: '/b',
    },
  ])('$name', ({ block, field, want }) => {
    expect(read(block)[field as keyof SharedContainer]).toEqual(want);
  });
});

describe('DAG-level container settings refused with the reason', () => {
  it.each([
    { name: 'no image', block: { image: undefined }, want: 'container.image is required' },
    {
      name: 'startup command without a command',
      block: { startup: 'command' },
      want: 'container.startup: command needs container.command',
    },
    {
      name: 'an unknown startup',
      block: { startup: 'lazy' },
      want: 'container.startup must be keepalive, entrypoint or command, not "lazy"',
    },
    {
      name: 'a host port',
      block: { ports: ['8080:80'] },
      want: 'container.ports[0]: "8080:80" must be a container port (8080 or 8080/udp); a host address or port has no meaning for a Pod (use a Service)',
    },
    {
      name: 'an absolute host path',
      block: { volumes: ['/var/data:/data'] },
      want: 'container.volumes[0]: host path /var/data is refused on Kubernetes (a step Pod has no host of its own); use a path relative to the workspace or a PersistentVolumeClaim name',
    },
    {
      name: 'a relative path that leaves the workspace',
      block: { volumes: ['../up:/up'] },
      want: 'container.volumes[0]: ../up leaves the workspace',
    },
    {
      name: 'a user name',
      block: { user: 'app' },
      want: 'container.user: "app" must be a numeric uid or uid:gid on Kubernetes',
    },
    {
      name: 'a network',
      block: { network: 'host' },
      want: 'container.network: "host" is refused: a Pod has the cluster\'s network only',
    },
    {
      name: 'an unknown waitFor',
      block: { waitFor: 'ready' },
      want: 'container.waitFor must be running or healthy, not "ready"',
    },
    {
      name: 'a logPattern that is no regular expression',
      block: { logPattern: '(' },
      want: 'container.logPattern: "(" is not a valid regular expression',
    },
  ])('$name', ({ block, want }) => {
    expect(sharedContainer({ image: 'alpine:3', ...block }, true)).toEqual({ problems: [want] });
  });

  it('refuses a relative volume when the run has no workspace', () => {
    expect(sharedContainer({ image: 'a', volumes: ['./d:/d'] }, false)).toEqual({
      problems: ["container.volumes[0]: a relative source needs the run's workspace, which is turned off"],
    });
  });
});

describe("the run's container Pod", () => {
  const dag = loadDag(
    'maxCleanUpTimeSec: 7\nworkerSelector: {pool: etl}\nkubernetes: {resources: {limits: {memory: 1Gi}}, activeDeadlineSeconds: 60}\ncontainer: {image: a}\nsteps: [x]',
    { fileName: 'etl' },
  ).dag;
  const workspace = {
    claimName: 'etl-r1-workspace',
    mountPath: '/workspace',
    size: '1Gi',
    accessMode: 'ReadWriteOnce' as const,
  };
  const block = read({
    volumes: ['./data:/data', 'cache:/cache:ro'],
    ports: ['8080'],
    user: '1000',
    restartPolicy: 'always',
  });
  const pod = sharedContainerPod(ref, dag, block, {
    workspace,
    registrySecret: 'etl-r1-registry',
    defaults: { security: 'restricted', user: 2000 },
  });
  const main = pod.spec?.containers[0];

  it.each([
    {
      name: 'is named after the run and labelled as its container',
      got: () => [pod.metadata?.name, isContainerPod(pod)],
      want: [sharedContainerPodName('etl-r1'), true],
    },
    {
      name: 'is owned by the run',
      got: () => pod.metadata?.ownerReferences?.map((o) => [o.kind, o.name, o.controller]),
      want: [['DAGRun', 'etl-r1', true]],
    },
    { name: 'restarts as the block asks', got: () => pod.spec?.restartPolicy, want: 'Always' },
    {
      name: 'mounts the workspace part, the claim and the whole workspace where steps have it',
      got: () => [pod.spec?.volumes?.map((v) => [v.name, v.persistentVolumeClaim?.claimName]), main?.volumeMounts],
      want: [
        [
          ['claim-0', 'cache'],
          ['kubedag-workspace', 'etl-r1-workspace'],
        ],
        [
          { name: 'kubedag-workspace', mountPath: '/data', subPath: 'data' },
          { name: 'claim-0', mountPath: '/cache', readOnly: true },
          { name: 'kubedag-workspace', mountPath: '/workspace' },
        ],
      ],
    },
    { name: 'has no API token', got: () => pod.spec?.automountServiceAccountToken, want: false },
    {
      name: "runs the keepalive as the block's user over the security defaults",
      got: () => [
        main?.command,
        pod.spec?.securityContext?.runAsUser,
        pod.spec?.securityContext?.runAsNonRoot,
        main?.securityContext?.allowPrivilegeEscalation,
      ],
      want: [KEEPALIVE_COMMAND, 1000, true, false],
    },
    {
      name: "gets the DAG's Pod settings and worker selector, the pull Secret and the run's grace period",
      got: () => [
        main?.resources,
        pod.spec?.nodeSelector,
        pod.spec?.imagePullSecrets,
        pod.spec?.terminationGracePeriodSeconds,
      ],
      want: [{ limits: { memory: '1Gi' } }, { pool: 'etl' }, [{ name: 'etl-r1-registry' }], 7],
    },
    {
      name: 'has no per-attempt deadline: it lives as long as the run',
      got: () => pod.spec?.activeDeadlineSeconds,
      want: undefined,
    },
  ])('$name', ({ got, want }) => {
    expect(got()).toEqual(want);
  });
});
