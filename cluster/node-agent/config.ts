/**
 * The node agent's configuration, read once at start from its flags (and, for the log, from
 * `KUBEDAG_LOG_LEVEL`/`KUBEDAG_LOG_FORMAT` when the flag is not given), then passed down.
 */
import { parseArgs } from 'node:util';
import { LOG_FLAGS, logSettingsFrom, type LogSettings } from '../../core/log.ts';

export interface AgentConfig {
  readonly name: string;
  readonly kubeconfig: string;
  /** Port of the kubelet-style HTTPS log endpoint. */
  readonly port: number;
  readonly tlsCert: string;
  readonly tlsKey: string;
  readonly clientCa: string;
  readonly stateDir: string;
  /** Host directories containers must not see besides the state directory (the cluster's). */
  readonly hidePaths: readonly string[];
  readonly labels: Readonly<Record<string, string>>;
  readonly kubernetesVersion: string;
  /**
   * PATH given to containers that set none: the host is the image, and Kubedag's image has the
   * step runner on its PATH, so `--step-runner-path` (the bin directory of cluster/step-runner.ts)
   * comes first.
   */
  readonly hostPath: string;
  readonly log: LogSettings;
}

const OPTIONS = {
  name: { type: 'string' },
  kubeconfig: { type: 'string' },
  port: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'client-ca': { type: 'string' },
  'state-dir': { type: 'string' },
  'hide-paths': { type: 'string', default: '' },
  labels: { type: 'string', default: '' },
  'kubernetes-version': { type: 'string', default: 'v1.37.1' },
  'step-runner-path': { type: 'string', default: '' },
  ...LOG_FLAGS,
} as const;

/** `gpu=true,zone=a` -> `{ gpu: 'true', zone: 'a' }`; items without `=` are ignored. */
export function parseLabels(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split(',')
      .filter((pair) => pair.includes('='))
      .map((pair) => pair.split('=', 2) as [string, string]),
  );
}

export function parseConfig(args: readonly string[], env: NodeJS.ProcessEnv): AgentConfig {
  const { values } = parseArgs({ args: [...args], options: OPTIONS });
  const required = (name: keyof typeof OPTIONS): string => {
    const value = values[name];
    if (typeof value !== 'string' || value === '') throw new Error(`--${name} is required`);
    return value;
  };
  return {
    name: required('name'),
    kubeconfig: required('kubeconfig'),
    port: Number(required('port')),
    tlsCert: required('tls-cert'),
    tlsKey: required('tls-key'),
    clientCa: required('client-ca'),
    stateDir: required('state-dir'),
    hidePaths: values['hide-paths'].split(',').filter((p) => p !== ''),
    labels: parseLabels(values.labels),
    kubernetesVersion: values['kubernetes-version'],
    hostPath: [values['step-runner-path'], env.PATH ?? '/usr/bin:/bin'].filter((p) => p !== '').join(':'),
    log: logSettingsFrom(values, env),
  };
}
