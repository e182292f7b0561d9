import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);
const withContainer = (container: string): string => `steps:\n  - {id: s, run: echo, container: ${container}}`;
const LONG_LIVED = 'a step Pod runs the step command; use the DAG-level container';

describe("a 2.x step's own container", () => {
  it.each([
    [
      'image and exec together',
      '{image: alpine, exec: db}',
      ["steps[0].container: 'exec' and 'image' are mutually exclusive"],
    ],
    ['neither image nor exec', '{env: [A=1]}', ["steps[0].container: either 'exec' or 'image' must be specified"]],
    [
      'keys of a new container beside exec',
      '{exec: db, name: x, pull_policy: always}',
      ["steps[0].container: fields name, pull_policy cannot be used with 'exec'"],
    ],
    [
      'a key Dagu does not have',
      '{image: alpine, entrypoint: [sh]}',
      [
        'steps[0].container.entrypoint: unknown key (a container takes exec, name, image, pull_policy, env, volumes, user, working_dir, platform, ports, network, keep_container, startup, command, wait_for, log_pattern, restart_policy, healthcheck, shell)',
      ],
    ],
    [
      'host volumes',
      '{image: alpine, volumes: ["/data:/data"]}',
      [
        "steps[0].container.volumes: Dagu 2.x feature step container.volumes (bind mounts of the host) is not supported: a step Pod gets volumes from its kubernetes block, not Docker bind mounts; write volumes and volumeMounts there (a hostPath volume only where the namespace's pod policy allows one), or use the run's workspace",
      ],
    ],
    [
      'a health check',
      '{image: alpine, healthcheck: {test: [CMD, "true"]}}',
      [
        "steps[0].container.healthcheck: Dagu 2.x feature step container.healthcheck is not supported: a step Pod's command starts with its container and nothing waits for health; check readiness in the command",
      ],
    ],
    [
      'a shell for an exec',
      '{exec: db, shell: [bash]}',
      [
        "steps[0].container.shell: Dagu 2.x feature step container.shell with exec is not supported: an exec'd command runs as written, without a shell; write bash -c '...' or a script",
      ],
    ],
    [
      "a shell for a named container (exec'd into when it runs)",
      '{image: alpine, name: db, shell: [bash]}',
      [
        "steps[0].container.shell: Dagu 2.x feature step container.shell with exec is not supported: an exec'd command runs as written, without a shell; write bash -c '...' or a script",
      ],
    ],
    [
      'a shell that does not start with its program',
      '{image: alpine, shell: [-c]}',
      ['steps[0].container.shell: must start with the shell program, such as /bin/bash'],
    ],
    [
      'a platform that is no node label value',
      '{image: alpine, platform: "linux/a b"}',
      [
        'steps[0].container.platform: "linux/a b" must be os or os/arch, each a node label value: "a b" is not a valid label value: letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63 characters',
      ],
    ],
    [
      'the keys of a long-lived container',
      '{image: alpine, startup: command, command: [sleep, "1"], keep_container: true, ports: ["80"], network: host}',
      [
        `steps[0].container.startup: Dagu 2.x feature step container.startup is not supported: ${LONG_LIVED}`,
        `steps[0].container.command: Dagu 2.x feature step container.command is not supported: ${LONG_LIVED}`,
        'steps[0].container.keep_container: Dagu 2.x feature step container.keep_container is not supported: a step Pod ends with its command; use the DAG-level container',
        'steps[0].container.ports: Dagu 2.x feature step container.ports is not supported: a step Pod runs one command and publishes no ports; use a Service',
        "steps[0].container.network: Dagu 2.x feature step container.network is not supported: a Pod has the cluster's network only",
      ],
    ],
    [
      'a user name',
      '{image: alpine, user: nobody}',
      ['steps[0].container.user: "nobody" must be a numeric uid or uid:gid on Kubernetes'],
    ],
    [
      'a user for an exec',
      '{exec: db, user: "0"}',
      [
        "steps[0].container.user: Dagu 2.x feature step container.user with exec is not supported: the exec API has no user, the command runs as the container's user",
      ],
    ],
    [
      'the fallback pull policy',
      '{image: alpine, pull_policy: fallback}',
      [
        'steps[0].container.pull_policy: must be always, missing, never or a boolean, not "fallback" (Kubernetes has no "pull, else use a local image" policy)',
      ],
    ],
    [
      'a platform variant',
      '{image: alpine, platform: linux/arm64/v8}',
      [
        'steps[0].container.platform: "linux/arm64/v8" must be os or os/arch (a variant cannot be chosen on Kubernetes)',
      ],
    ],
    ['an empty name', '" "', ['steps[0].container: must not be empty (the name of a running container)']],
    ['a number', '5', ['steps[0].container: must be a container name or a mapping (image or exec)']],
    [
      'an exec env entry without =',
      '{exec: db, env: [NOPE]}',
      ['steps[0].container.env[0]: must be NAME=value or a NAME: value mapping'],
    ],
  ])('refuses %s', (_name, container, want) => {
    expect(errorsOf(withContainer(container))).toEqual(want);
  });

  it.each([
    [
      'a step of another type',
      '{id: s, type: ssh, with: {host: h}, command: echo, container: {image: alpine}}',
      'steps[0].container: only a docker step runs in a container of its own, not a step of type ssh',
    ],
    [
      'an action other than docker.run and container.run',
      '{id: s, action: http.request, with: {method: GET, url: "http://x"}, container: {image: alpine}}',
      'steps[0].container: action "http.request" does not take container (only docker.run, container.run, docker, container do)',
    ],
    [
      'exec, which runs a command directly',
      '{id: s, exec: {command: echo}, container: {image: alpine}}',
      'steps[0].container: exec runs a command directly, not in a container; write the command with run',
    ],
    [
      'the exec action',
      '{id: s, action: exec, with: {command: echo}, container: {image: alpine}}',
      'steps[0].container: exec runs a command directly, not in a container; write the command with run',
    ],
    [
      'docker settings under with as well',
      '{id: s, type: docker, with: {image: busybox}, command: echo, container: {image: alpine}}',
      'steps[0].container: container and with both give docker settings; use container',
    ],
    [
      "the step's working_dir beside the container's",
      '{id: s, run: echo, working_dir: /a, container: {image: alpine, working_dir: /b}}',
      "steps[0].container.working_dir: the step's working_dir and container.working_dir both say where the command runs; use container.working_dir",
    ],
    [
      "the step's kubernetes block beside Pod settings of the container",
      '{id: s, run: echo, kubernetes: {imagePullPolicy: Never}, container: {image: alpine, pull_policy: always}}',
      "steps[0].container: the step's kubernetes block and its container both set the step Pod; use one of them",
    ],
  ])('refuses a container on %s', (_name, step, want) => {
    expect(errorsOf(`steps:\n  - ${step}`)).toEqual([want]);
  });

  it('says nothing of the container of a step whose action or type is refused already', () => {
    const why = 'is not supported: Kubedag runs no coding-agent harnesses';
    expect(
      errorsOf('steps:\n  - {id: s, action: harness.run, with: {prompt: x}, container: {image: a, volumes: [".:/w"]}}'),
    ).toEqual([`steps[0].action: Dagu 2.x feature action harness.run (coding-agent harness) ${why}`]);
    expect(errorsOf('steps:\n  - {id: s, type: harness, container: {image: a}}')).toEqual([
      `steps[0].type: Dagu 2.x feature type: harness (coding-agent harness) ${why}`,
    ]);
  });

  it('refuses a container on a sub-DAG step', () => {
    expect(
      errorsOf('steps:\n  - {id: s, call: child, container: {image: alpine}}\n---\nname: child\nsteps: [{run: echo}]'),
    ).toEqual(['steps[0].container: only a docker step runs in a container of its own, not a sub-DAG step']);
  });

  it('runs docker.run with a container as the docker step of that image', () => {
    const loaded = load(
      'steps:\n  - {id: s, action: docker.run, with: {command: echo hi}, container: {image: alpine}}',
    );
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]).toMatchObject({
      executor: { type: 'docker', config: { image: 'alpine' } },
      command: 'echo',
    });
  });

  it("runs a new container's command in its shell: the step's shell, Dagu's -c left to the runner", () => {
    const loaded = load(withContainer('{image: alpine, shell: [/bin/bash, -o, errexit, -c]}'));
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]?.shell).toEqual(['/bin/bash', '-o', 'errexit']);
    expect(
      errorsOf('steps:\n  - {id: s, command: echo, shell: sh, container: {image: alpine, shell: [bash]}}'),
    ).toEqual(["steps[0].container.shell: the step's shell and container.shell both name the shell; use one of them"]);
  });

  it('reads a file whose only 2.x key is a step container as 2.x', () => {
    const loaded = load('steps:\n  - {name: a, command: echo hi, container: {image: alpine}}');
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]?.executor).toEqual({ type: 'docker', config: { image: 'alpine' } });
  });

  it('takes Go boolean words as pull policies, as Dagu does', () => {
    const policy = (word: string): unknown =>
      load(withContainer(`{image: alpine, pull_policy: "${word}"}`)).dag.steps[0]?.kubernetes?.imagePullPolicy;
    expect(['always', 'true', 'T', '1', 'missing', 'never', 'false', '0'].map(policy)).toEqual([
      'Always',
      'Always',
      'Always',
      'Always',
      'IfNotPresent',
      'Never',
      'Never',
      'Never',
    ]);
  });
});

describe('a step container beside the DAG-level container', () => {
  const dag = (steps: string): string => `container: {image: python:3.12}\nsteps:\n${steps}`;

  it("runs the step in its own container, and so a 2.x docker step with settings (Dagu 2.x's rule)", () => {
    const loaded = load(
      dag(
        [
          '  - {id: shared, run: python -V}',
          '  - {id: own, run: node -v, container: {image: node:24}}',
          '  - {id: exec, run: psql -V, container: db-0}',
          '  - {id: typed, type: docker, with: {image: busybox}, command: "true"}',
        ].join('\n'),
      ),
    );
    expect(loaded.errors).toEqual([]);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.dag.steps.map((step) => step.executor)).toEqual([
      { type: 'container', config: {} },
      { type: 'docker', config: { image: 'node:24' } },
      { type: 'docker', config: { containerName: 'db-0' } },
      { type: 'docker', config: { image: 'busybox' } },
    ]);
  });

  it('keeps 1.x docker steps in the DAG-level container, their settings ignored with a warning', () => {
    const loaded = load(
      dag(
        '  - {name: typed, executor: {type: docker, config: {image: busybox}}, command: "true"}\n  - {name: b, command: "true", retryPolicy: {limit: 1, intervalSec: 1}}',
      ),
    );
    expect(loaded.errors).toEqual([]);
    expect(loaded.dag.steps[0]?.executor).toEqual({ type: 'container', config: {} });
    expect(loaded.warnings.map(formatIssue)).toEqual([
      'steps[0].executor.config: the DAG-level container runs this step: only its command and args are used, so these settings are ignored (as in Dagu)',
    ]);
  });
});
