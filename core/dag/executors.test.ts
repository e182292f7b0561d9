import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import type { Step } from './model.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'compat' });
const firstStep = (yaml: string): Step => load(yaml).dag.steps[0] as Step;

describe('executor settings Dagu ignores load with a warning, not an error', () => {
  const cases: { name: string; yaml: string; want: string[] }[] = [
    {
      name: 'a misspelt mail key is warned about with the key it resembles',
      yaml: 'steps:\n  - {executor: {type: mail, config: {to: a@example.test, subjet: hi}}}',
      want: [
        'steps[0].executor.config.subjet: the mail executor does not read this setting and ignores it; did you mean "subject"?',
      ],
    },
    {
      name: 'an http key far from every known one lists the known keys',
      yaml: 'steps:\n  - {command: GET http://example.test, executor: {type: http, config: {retries: 3}}}',
      want: [
        'steps[0].executor.config.retries: the http executor does not read this setting and ignores it (known: headers, body, query, timeout, silent, debug, json, skipTLSVerify, form, files, format, output)',
      ],
    },
    {
      name: 'an unknown ssh key in Dagu 2.x spelling is located under with',
      yaml: 'steps:\n  - {command: uptime, type: ssh, with: {host: h, identity: k}}',
      want: [
        'steps[0].with.identity: the ssh executor does not read this setting and ignores it (known: user, host, ip, port, key, password, strictHostKey, knownHostFile, shell, shellArgs, timeout, bastion)',
      ],
    },
    {
      name: 'an unknown docker key is warned about, its sibling keys still read',
      yaml: 'steps:\n  - {command: echo, executor: {type: docker, config: {image: alpine, imagePullPolicy: x}}}',
      want: [
        'steps[0].executor.config.imagePullPolicy: the docker executor does not read this setting and ignores it (known: image, containerName, pull, platform, autoRemove, container, host, network, exec)',
      ],
    },
    {
      name: 'config on a dag executor, which reads none, is warned about',
      yaml: 'steps:\n  - {command: child, executor: {type: dag, config: {wait: true}}}\n---\nname: child\nsteps: [echo]',
      want: [
        'steps[0].executor.config.wait: the dag executor does not read this setting and ignores it (it has no settings)',
      ],
    },
    {
      name: 'a gha step loads with the reason its runs are refused',
      yaml: 'steps:\n  - {command: actions/checkout@v4, executor: gha}',
      want: [
        'steps[0].executor: the gha executor is not supported on Kubernetes: it runs GitHub Actions with act, which needs a container engine inside the cluster (and Dagu 2.x removed it); runs of this DAG are refused',
      ],
    },
    {
      name: 'keys written in another letter case are read without a warning',
      yaml: 'steps:\n  - {command: GET http://x.test, executor: {type: http, config: {Headers: {a: b}, SKIPTLSVERIFY: true}}}',
      want: [],
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    const result = load(yaml);
    expect(result.errors.map(formatIssue)).toEqual([]);
    expect(result.warnings.map(formatIssue)).toEqual(want);
  });
});

describe('executor forms Dagu accepts are read as Dagu reads them', () => {
  const cases: { name: string; yaml: string; want: Partial<Step> }[] = [
    {
      name: 'config keys in another letter case take their canonical spelling',
      yaml: 'steps:\n  - {command: GET http://x.test, executor: {type: http, config: {Silent: true, skiptlsverify: true}}}',
      want: { executor: { type: 'http', config: { silent: true, skipTLSVerify: true } } },
    },
    {
      name: 'ssh ip is the host, and wins over host as in Dagu',
      yaml: 'steps:\n  - {command: uptime, executor: {type: ssh, config: {ip: 10.0.0.5, host: other, user: ops}}}',
      want: { executor: { type: 'ssh', config: { host: '10.0.0.5', user: 'ops' } } },
    },
    {
      name: 'a multi-line jq command is the filter and script the input',
      yaml: 'steps:\n  - executor: jq\n    command: |\n      .items[]\n      | select(.on)\n    script: \'{"items": []}\'',
      want: {
        command: '.items[]\n| select(.on)',
        cmdWithArgs: '.items[]\n| select(.on)',
        args: [],
        script: '{"items": []}',
      },
    },
    {
      name: 'a jq step with only script (the input) loads: Dagu runs it with the identity filter',
      yaml: 'steps:\n  - {executor: jq, script: \'{"a": 1}\'}',
      want: { script: '{"a": 1}' },
    },
    {
      name: 'list-form params on a call step become one params string, mappings quoted',
      yaml: 'steps:\n  - call: child\n    params: ["A=1", {B: two words}, {C: \'say "hi"\'}]\n---\nname: child\nsteps: [echo]',
      want: { params: 'A=1 B="two words" C="say \\"hi\\""' },
    },
    {
      name: 'an http method beyond the common ones passes through',
      yaml: 'steps:\n  - {command: PURGE http://cache.test/a, executor: http}',
      want: { command: 'PURGE', args: ['http://cache.test/a'] },
    },
    {
      name: 'an http method from a variable is left to the run',
      yaml: 'steps:\n  - {command: "${METHOD} http://x.test", executor: http}',
      want: { command: '${METHOD}' },
    },
  ];
  it.each(cases)('$name', ({ yaml, want }) => {
    expect(load(yaml).errors.map(formatIssue)).toEqual([]);
    expect(firstStep(yaml)).toMatchObject(want);
  });
});

describe('steps of a DAG with a container block', () => {
  const dagWith = (steps: string): ReturnType<typeof loadDag> => load(`container: {image: alpine}\nsteps:\n${steps}`);
  it.each([
    {
      name: 'a step that names no executor runs in the container, named as Dagu names it',
      steps: '  - echo hi',
      want: { type: 'container', name: 'container_1' },
    },
    {
      name: 'a docker step runs in the container too',
      steps: '  - {name: d, command: echo, executor: docker}',
      want: { type: 'container', name: 'd' },
    },
    {
      name: 'a step that names the shell executor runs in a Pod of its own',
      steps: '  - {name: s, command: echo, executor: shell}',
      want: { type: 'shell', name: 's' },
    },
    {
      name: 'an http step keeps its executor',
      steps: '  - {name: h, command: GET http://x, executor: http}',
      want: { type: 'http', name: 'h' },
    },
    { name: 'a call step stays a sub-DAG', steps: '  - {name: c, call: other}', want: { type: 'dag', name: 'c' } },
  ])('$name', ({ steps, want }) => {
    const step = dagWith(steps).dag.steps[0];
    expect({ type: step?.executor.type, name: step?.name }).toEqual(want);
  });

  it("warns that a docker step's own settings are not used in the container", () => {
    const got = dagWith('  - {command: echo, executor: {type: docker, config: {image: node:24}}}');
    expect([got.errors, got.dag.steps[0]?.executor.config, got.warnings.map(formatIssue)]).toEqual([
      [],
      {},
      [
        'steps[0].executor.config: the DAG-level container runs this step: only its command and args are used, so these settings are ignored (as in Dagu)',
      ],
    ]);
  });

  it('refuses a jq step without script or input, its JSON input, and with both', () => {
    expect(load('steps:\n  - {executor: jq, command: .a}').errors.map(formatIssue)).toEqual([
      'steps[0]: the jq executor needs script (the JSON input) or input (a JSON file); command is the filter, "." when left out',
    ]);
    expect(
      load('steps:\n  - {executor: {type: jq, config: {input: a.json}}, script: "{}"}').errors.map(formatIssue),
    ).toEqual(['steps[0].executor.config.input: input and script both give the JSON input; use one of them']);
    expect(
      load('steps:\n  - {executor: {type: jq, config: {input: ""}}, command: .a}').errors.map(formatIssue),
    ).toEqual(['steps[0].executor.config.input: must be the path of a JSON file']);
    expect(load('steps:\n  - {executor: {type: jq, config: {input: a.json}}, command: .a}').errors).toEqual([]);
  });

  it('loads a step with neither command nor script, as Dagu does (its runs are refused)', () => {
    expect(dagWith('  - {name: empty, depends: []}').errors).toEqual([]);
  });

  it("warns that healthy is the Pod's Ready condition, since Kubernetes ignores image health checks", () => {
    expect(load('container: {image: alpine, waitFor: healthy}\nsteps: [echo]').warnings.map(formatIssue)).toEqual([
      "container.waitFor: healthy waits for the container Pod's Ready condition; Kubernetes does not run an image's HEALTHCHECK, so it comes as soon as the container runs",
    ]);
  });
});
