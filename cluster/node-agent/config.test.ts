import { describe, expect, it } from 'vitest';
import { parseConfig, parseLabels, type AgentConfig } from './config.ts';

const flags = [
  '--name=node-1',
  '--kubeconfig=/k',
  '--port=10250',
  '--tls-cert=/c',
  '--tls-key=/k.key',
  '--client-ca=/ca',
  '--state-dir=/s',
];

describe('parseConfig', () => {
  const cases: { name: string; args: string[]; env: NodeJS.ProcessEnv; want: Partial<AgentConfig> | string }[] = [
    {
      name: 'reads the required flags and defaults the rest, the log as JSON at info',
      args: flags,
      env: { PATH: '/bin' },
      want: {
        name: 'node-1',
        port: 10250,
        stateDir: '/s',
        labels: {},
        kubernetesVersion: 'v1.37.1',
        hostPath: '/bin',
        log: { level: 'info', format: 'json' },
      },
    },
    {
      name: 'takes the log settings from the variables when no flag gives them',
      args: flags,
      env: { KUBEDAG_LOG_LEVEL: 'debug', KUBEDAG_LOG_FORMAT: 'pretty' },
      want: { log: { level: 'debug', format: 'pretty' } },
    },
    {
      name: 'lets a flag win over its variable',
      args: [...flags, '--log-format=json'],
      env: { KUBEDAG_LOG_FORMAT: 'pretty' },
      want: { log: { level: 'info', format: 'json' } },
    },
    {
      name: 'gives containers a plain PATH when the agent has none',
      args: flags,
      env: {},
      want: { hostPath: '/usr/bin:/bin' },
    },
    {
      name: 'puts the step runner first on the PATH of containers',
      args: [...flags, '--step-runner-path=/cache/runner/bin'],
      env: { PATH: '/usr/bin:/bin' },
      want: { hostPath: '/cache/runner/bin:/usr/bin:/bin' },
    },
    {
      name: 'refuses to start without a state directory',
      args: flags.filter((f) => !f.startsWith('--state-dir')),
      env: {},
      want: '--state-dir is required',
    },
    {
      name: 'refuses an unknown log format',
      args: [...flags, '--log-format=text'],
      env: {},
      want: 'log-format must be one of json, pretty',
    },
  ];
  it.each(cases)('$name', ({ args, env, want }) => {
    if (typeof want === 'string') expect(() => parseConfig(args, env)).toThrow(want);
    else expect(parseConfig(args, env)).toMatchObject(want);
  });
});

describe('parseLabels', () => {
  const cases: { name: string; text: string; want: Record<string, string> }[] = [
    { name: 'reads comma-separated key=value pairs', text: 'gpu=true,zone=a', want: { gpu: 'true', zone: 'a' } },
    { name: 'gives no labels for an empty text', text: '', want: {} },
    { name: 'skips items without an equals sign', text: 'gpu,zone=a', want: { zone: 'a' } },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(parseLabels(text)).toEqual(want);
  });
});
