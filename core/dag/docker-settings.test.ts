import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import type { Step } from './model.ts';

/** A one-step DAG of a docker step with these config lines (under `config:`), in Dagu 1.x keys. */
const dockerDag = (config: string, extra = ''): string =>
  `steps:\n  - name: s\n    command: echo hi\n    env: [A=step, B=step]\n${extra}    executor:\n      type: docker\n      config:\n${config
    .split('\n')
    .map((line) => `        ${line}`)
    .join('\n')}\n`;

function load(text: string): { step: Step | undefined; errors: string[] } {
  const result = loadDag(text, { fileName: 'docker' });
  return { step: result.dag.steps[0], errors: result.errors.map(formatIssue) };
}

describe("the docker executor's 1.x settings for a new container", () => {
  it.each([
    { name: 'pull always', config: 'image: a\npull: always', pod: { imagePullPolicy: 'Always' } },
    { name: 'pull missing', config: 'image: a\npull: missing', pod: { imagePullPolicy: 'IfNotPresent' } },
    { name: 'pull never', config: 'image: a\npull: never', pod: { imagePullPolicy: 'Never' } },
    { name: "pull as Dagu's boolean true", config: 'image: a\npull: true', pod: { imagePullPolicy: 'Always' } },
    { name: "pull as Dagu's boolean false", config: 'image: a\npull: "false"', pod: { imagePullPolicy: 'Never' } },
    {
      name: 'platform os/arch',
      config: 'image: a\nplatform: linux/arm64',
      pod: { nodeSelector: { 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' } },
    },
    {
      name: 'platform os',
      config: 'image: a\nplatform: linux',
      pod: { nodeSelector: { 'kubernetes.io/os': 'linux' } },
    },
    { name: 'container.workingDir', config: 'image: a\ncontainer: {workingDir: /app}', pod: { workingDir: '/app' } },
    {
      name: 'a numeric container.user uid:gid',
      config: 'image: a\ncontainer: {user: "1000:2000"}',
      pod: { securityContext: { runAsUser: 1000, runAsGroup: 2000 } },
    },
    { name: 'a numeric uid', config: 'image: a\ncontainer: {User: 42}', pod: { securityContext: { runAsUser: 42 } } },
    { name: 'autoRemove true (what a step Pod does)', config: 'image: a\nautoRemove: true', pod: undefined },
    { name: 'empty host and network', config: 'image: a\nhost: {}\nnetwork: {}', pod: undefined },
  ])('$name become the step Pod settings', ({ config, pod }) => {
    const { step, errors } = load(dockerDag(config));
    expect(errors).toEqual([]);
    expect(step?.kubernetes).toEqual(pod);
    expect(step?.executor).toEqual({ type: 'docker', config: { image: 'a' } });
  });

  it("puts container.env after the step's env, so the container's wins", () => {
    const { step, errors } = load(dockerDag('image: a\ncontainer:\n  env: [B=container, C=container]'));
    expect(errors).toEqual([]);
    expect(step?.env).toEqual([
      { name: 'A', value: 'step' },
      { name: 'B', value: 'step' },
      { name: 'B', value: 'container' },
      { name: 'C', value: 'container' },
    ]);
  });

  it('reads the same keys from Dagu 2.x `with:`', () => {
    const { step, errors } = load(
      'steps:\n  - name: s\n    type: docker\n    command: echo\n    with: {image: a, pull: never, auto_remove: true, container: {env: [X=1]}}\n',
    );
    expect(errors).toEqual([]);
    expect(step?.kubernetes).toEqual({ imagePullPolicy: 'Never' });
    expect(step?.env).toEqual([{ name: 'X', value: '1' }]);
  });

  const at = 'steps[0].executor.config';
  it.each([
    {
      name: 'autoRemove false',
      config: 'image: a\nautoRemove: false',
      want: `${at}.autoRemove: false is not supported on Kubernetes: a step Pod is always deleted once its logs are archived; for a container that outlives its step use the DAG-level container with keepContainer`,
    },
    {
      name: 'a non-boolean autoRemove',
      config: 'image: a\nautoRemove: soon',
      want: `${at}.autoRemove: must be a boolean, not "soon"`,
    },
    {
      name: 'host binds',
      config: 'image: a\nhost: {binds: ["/data:/data"]}',
      want: `${at}.host.binds: is not supported on Kubernetes: a step Pod mounts no directories of the node; use kubernetes volumes (or the run's workspace)`,
    },
    {
      name: 'host portBindings',
      config: 'image: a\nhost: {portBindings: {"80/tcp": []}}',
      want: `${at}.host.portBindings: is not supported on Kubernetes: a step Pod binds no node ports; reach it through a Service`,
    },
    {
      name: 'host privileged',
      config: 'image: a\nhost: {privileged: true}',
      want: `${at}.host.privileged: is not supported on Kubernetes: the namespace policy decides what a step Pod may do; a file cannot ask for a privileged Pod`,
    },
    {
      name: 'another host setting',
      config: 'image: a\nhost: {dns: [1.1.1.1]}',
      want: `${at}.host.dns: is not supported on Kubernetes: this Docker setting has no form in a step Pod`,
    },
    {
      name: 'network',
      config: 'image: a\nnetwork: {EndpointsConfig: {n: {}}}',
      want: `${at}.network: is not supported on Kubernetes: a step Pod has the cluster's network only (reach other steps' services by their Service names)`,
    },
    {
      name: 'container exposedPorts',
      config: 'image: a\ncontainer: {exposedPorts: {"80/tcp": {}}}',
      want: `${at}.container.exposedPorts: is not supported on Kubernetes: a step Pod publishes no ports; reach it through a Service`,
    },
    {
      name: 'a user name',
      config: 'image: a\ncontainer: {user: postgres}',
      want: `${at}.container.user: "postgres" must be a numeric uid or uid:gid on Kubernetes`,
    },
    {
      name: 'an unknown pull policy',
      config: 'image: a\npull: fallback',
      want: `${at}.pull: must be always, missing, never or a boolean, not "fallback" (Kubernetes has no "pull, else use a local image" policy)`,
    },
    {
      name: 'a platform variant',
      config: 'image: a\nplatform: linux/arm/v7',
      want: `${at}.platform: "linux/arm/v7" must be os or os/arch (a variant cannot be chosen on Kubernetes)`,
    },
    {
      name: 'settings of a new container on a step that execs into a running one',
      config: 'containerName: web\npull: always',
      want: `${at}.pull: sets up a new container, but without image the step execs into the running container named by containerName`,
    },
    {
      name: 'a platform that is no node label value, at platform rather than the nodeSelector it becomes',
      config: 'image: a\nplatform: "linux/a b"',
      want: `${at}.platform: "linux/a b" must be os or os/arch, each a node label value: "a b" is not a valid label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters`,
    },
  ])('refuses $name by its key', ({ config, want }) => {
    expect(load(dockerDag(config)).errors).toEqual([want]);
  });

  it("refuses them beside the step's own kubernetes block (two sources for one Pod)", () => {
    expect(load(dockerDag('image: a\npull: always', '    kubernetes: {imagePullPolicy: Never}\n')).errors).toEqual([
      `${at}: the step's kubernetes block and its docker settings both set the step Pod; use one of them`,
    ]);
  });

  it("refuses container.workingDir beside the step's dir, at the key written", () => {
    expect(load(dockerDag('image: a\ncontainer: {workingDir: /app}', '    dir: /x\n')).errors).toEqual([
      `${at}.container.workingDir: the step's workingDir (or dir) and container.workingDir both say where the command runs; use container.workingDir`,
    ]);
  });

  it('tells both clashes at once: the working directory and the kubernetes block', () => {
    const extra = '    dir: /x\n    kubernetes: {imagePullPolicy: Never}\n';
    expect(load(dockerDag('image: a\ncontainer: {workingDir: /app}', extra)).errors).toEqual([
      `${at}.container.workingDir: the step's workingDir (or dir) and container.workingDir both say where the command runs; use container.workingDir`,
      `${at}: the step's kubernetes block and its docker settings both set the step Pod; use one of them`,
    ]);
  });

  it('leaves a docker step that execs into the DAG-level container to the shared-container warning', () => {
    const result = loadDag(`container: {image: alpine}\n${dockerDag('image: a\nnetwork: {x: 1}')}`, { fileName: 'd' });
    expect(result.errors).toEqual([]);
    expect(result.dag.steps[0]?.kubernetes).toBeUndefined();
  });
});
