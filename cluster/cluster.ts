/**
 * A whole local cluster in one call: control plane, volume provisioner and its default
 * StorageClass, node agents, CRDs Established and the chart's step exec ClusterRole (what a
 * Helm install puts cluster-wide), nodes Ready.
 * Used by `make cluster-up`, `make dev` and the integration tests' global setup alike.
 */
import { join } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import type { LogFormat } from '../core/log.ts';
import type { Binaries } from './binaries.ts';
import type { OnExit } from './processes.ts';
import { startControlPlane, stopControlPlane, type ClusterState, type NodeSpec } from './controlplane.ts';
import { DEFAULT_STORAGE_CLASS } from './provisioner/config.ts';
import { installCrds, kubeConfig, waitForNodes, waitForStorageClass } from './setup.ts';
import { installStepExecRole } from './step-exec-role.ts';

/**
 * What the chart installs cluster-wide, as this checkout has it: the CRDs, and the step exec
 * ClusterRole the operator's settings assume. Run on every start, a cluster left running too,
 * so that a checkout with newer CRDs or rules brings them.
 */
export async function installClusterWide(kc: KubeConfig, log?: (line: string) => void): Promise<void> {
  const crds = await installCrds(kc);
  log?.(`CRDs established: ${crds.join(', ')}`);
  log?.(`step exec ClusterRole ${await installStepExecRole(kc)} as the chart makes it`);
}
import { ensureStepRunner } from './step-runner.ts';
import {
  hasRealNode,
  NODE_NAME,
  prepareRealCluster,
  removeRealNode,
  startRealCluster,
  type PreparedNode,
} from './real-node/cluster.ts';

/** Two nodes, one of them labelled for GPU work, so that selectors have something to choose. */
export const DEFAULT_NODES: readonly NodeSpec[] = [
  { name: 'kubedag-node-1' },
  { name: 'kubedag-node-2', labels: { gpu: 'true' } },
];

/** `a,b:gpu=true;zone=x` -> nodes a and b, b with two labels. */
export function parseNodes(text: string): NodeSpec[] {
  return text
    .split(',')
    .filter((item) => item.trim() !== '')
    .map((item) => {
      const [name = '', labelText = ''] = item.trim().split(':', 2);
      const labels = Object.fromEntries(
        labelText
          .split(';')
          .filter((pair) => pair.includes('='))
          .map((pair) => pair.split('=', 2) as [string, string]),
      );
      return { name, labels };
    });
}

export interface ClusterOptions {
  readonly dir: string;
  readonly binaries: Binaries;
  readonly nodes?: readonly NodeSpec[];
  /** JSON lines by default; `pretty` for the developer cluster. */
  readonly nodeAgentLogFormat?: LogFormat;
  /** kube-controller-manager's --node-monitor-grace-period (controlplane.ts). */
  readonly nodeMonitorGraceSeconds?: number;
  readonly log?: (line: string) => void;
  /** Told when a process of the cluster ends, while this process lives (`make dev`). */
  readonly onExit?: OnExit;
  /**
   * A real node (kubelet, containerd, kube-proxy) with the whole cluster in a network namespace
   * of its own (cluster/real-node, docs/real-node.md); node agents only when `nodes` names them.
   */
  readonly realNode?: boolean;
}

/** The node agent runs on the same Node.js as this process, straight from its TypeScript. */
export const NODE_AGENT_COMMAND: readonly string[] = [
  process.execPath,
  ...(process.env.NODE_AGENT_PROFILE === undefined
    ? []
    : ['--cpu-prof', `--cpu-prof-dir=${process.env.NODE_AGENT_PROFILE}`]),
  join(import.meta.dirname, 'node-agent/main.ts'),
];

/** The local volume provisioner, likewise. */
export const PROVISIONER_COMMAND: readonly string[] = [
  process.execPath,
  join(import.meta.dirname, 'provisioner/main.ts'),
];

export async function startCluster(options: ClusterOptions): Promise<ClusterState> {
  const nodes = options.nodes ?? (options.realNode === true ? [] : DEFAULT_NODES);
  // Steps of the http, jq, mail and ssh executors run `kubedag-step`: on this cluster, from the
  // node agents' PATH (cluster/step-runner.ts), rebuilt here whenever its sources changed.
  const runner = await ensureStepRunner(undefined, options.log);
  const nodeAgentCommand = [...NODE_AGENT_COMMAND, `--step-runner-path=${runner.bin}`];
  const log = options.log ?? ((): void => undefined);
  let real: PreparedNode | undefined;
  let state: ClusterState;
  try {
    if (options.realNode === true) real = await prepareRealCluster(options.dir, log);
    state = await startControlPlane({
      dir: options.dir,
      binaries: options.binaries,
      nodes,
      nodeAgentCommand,
      provisionerCommand: PROVISIONER_COMMAND,
      nodeAgentLogFormat: options.nodeAgentLogFormat,
      nodeMonitorGraceSeconds: options.nodeMonitorGraceSeconds,
      log: options.log,
      ...(options.onExit === undefined ? {} : { onExit: options.onExit }),
      ...(real === undefined ? {} : { placement: real.placement }),
    });
  } catch (error) {
    if (await hasRealNode(options.dir)) await removeRealNode(options.dir, log);
    throw error;
  }
  try {
    const kc = kubeConfig(state.kubeconfig);
    await installClusterWide(kc, options.log);
    if (real !== undefined) await startRealCluster(state, real, log, options.onExit);
    await waitForNodes(kc, [...nodes.map((n) => n.name), ...(real === undefined ? [] : [NODE_NAME])]);
    await waitForStorageClass(kc, DEFAULT_STORAGE_CLASS);
    return state;
  } catch (error) {
    await stopCluster(state, log);
    throw error;
  }
}

/** Stops the cluster's programs; a real node's traces on the host go too. */
export async function stopCluster(state: ClusterState, log: (line: string) => void = () => undefined): Promise<void> {
  await stopControlPlane(state);
  if (await hasRealNode(state.dir)) await removeRealNode(state.dir, log);
}
