/**
 * The cluster CLI's commands, flags and variables (cluster/cli.ts), declared once: the CLI parses
 * them from here and `--help` prints them (core/settings.ts). Apart from cli.ts, which starts
 * the program when imported, so that tests can read them.
 */
import { join } from 'node:path';
import type { HelpPage } from '../core/settings-help.ts';
import { setting, type Setting } from '../core/settings.ts';
import { CACHE_SETTINGS } from '../build/cache-dir.ts';
import { devSettingsTable, type DevSettingsTable } from './dev-settings.ts';
import { STEP_RUNNER_SETTINGS } from './step-runner.ts';

export type ClusterSettings = DevSettingsTable & {
  readonly nodes: Setting<string | undefined>;
  readonly realNode: Setting<boolean>;
} & typeof CACHE_SETTINGS &
  typeof STEP_RUNNER_SETTINGS;

const root = join(import.meta.dirname, '..');

/**
 * Every flag and variable of the cluster CLI, in the order help lists them (core/settings.ts);
 * a relative directory is taken from `cwd`.
 */
export function clusterSettings(cwd: string): ClusterSettings {
  return {
    ...devSettingsTable(root, cwd),
    nodes: setting<string | undefined>({
      flag: 'nodes',
      variables: [],
      value: 'name[:label=value;...],...',
      default: undefined,
      defaultText: 'kubedag-node-1, and kubedag-node-2 labelled gpu=true',
      description: 'The node agents to start (up, dev), each with its labels.',
      read: (text) => text,
    }),
    realNode: setting({
      flag: 'real-node',
      variables: ['KUBEDAG_REAL_NODE'],
      isSwitch: true,
      default: false,
      description:
        'Run one real node (kubelet, containerd, runc, kube-proxy) with the whole cluster in a network namespace of its own (up, dev; needs root; docs/real-node.md); node agents only when --nodes names them. The variable is on when 1, true or yes.',
      read: (text) => ['1', 'true', 'yes'].includes(text.toLowerCase()),
    }),
    ...CACHE_SETTINGS,
    ...STEP_RUNNER_SETTINGS,
  };
}

export function clusterHelp(settings: ClusterSettings): HelpPage {
  return {
    usage:
      'node cluster/cli.ts build|up|down|dev [--flag=value ...]   (make cluster-build, cluster-up, cluster-down, dev)',
    about:
      'The local cluster for developers: a real control plane on loopback and TypeScript node agents. State lives in the stack directory, so several stacks run side by side.',
    commands: [
      {
        name: 'build',
        summary: 'build the pinned binaries (etcd, Kubernetes, helm) from their Go modules into the cache',
      },
      { name: 'up', summary: 'start the control plane and node agents of the stack and leave them running' },
      { name: 'down', summary: "stop the stack's cluster" },
      { name: 'dev', summary: 'up, then the operator and API server from the sources, until Ctrl-C' },
    ],
    settings,
  };
}
