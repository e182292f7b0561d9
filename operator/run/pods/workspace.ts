/**
 * A run's workspace: one PersistentVolumeClaim owned by the run, mounted in every step Pod of
 * the run at the DAG's `workingDir` (or /workspace), so that steps share files the way Dagu
 * users expect from one host directory. Where it is, what it is called, where a step works and
 * where the step log files named by DAG_RUN_* live. Pure.
 */
import { posix } from 'node:path';
import type { V1PersistentVolumeClaim } from '@kubernetes/client-node';
import type { Dag, Step } from '../../../core/dag/index.ts';
import { LABELS } from '../../../core/resources/constants.ts';
import { labelValue, workspaceClaimName } from '../../../core/resources/names.ts';
import type { WorkspaceDefaults } from '../../config.ts';
import type { RunRef } from '../ref.ts';

/** Where the workspace is mounted when the DAG names no absolute `workingDir`. */
export const DEFAULT_WORKSPACE_PATH = '/workspace';
/** The workspace volume's name in a step Pod; the DAG's own volumes may not use it. */
export const WORKSPACE_VOLUME = 'kubedag-workspace';
/** Step log files without a workspace: they exist in the Pod while the step runs, and no longer. */
const POD_LOG_DIR = '/tmp/kubedag';

export interface Workspace {
  readonly claimName: string;
  readonly mountPath: string;
  readonly storageClassName?: string;
  readonly size: string;
  readonly accessMode: 'ReadWriteOnce' | 'ReadWriteMany';
}

/** The DAG's `kubernetes.workspace` over the operator's defaults; undefined when turned off. */
export function runWorkspace(dag: Dag, defaults: WorkspaceDefaults, runName: string): Workspace | undefined {
  const own = dag.kubernetes?.workspace;
  if (!(own?.enabled ?? defaults.enabled)) return undefined;
  const storageClassName = own?.storageClassName ?? defaults.storageClassName;
  return {
    claimName: workspaceClaimName(runName),
    mountPath:
      dag.workingDir !== undefined && posix.isAbsolute(dag.workingDir)
        ? posix.normalize(dag.workingDir)
        : DEFAULT_WORKSPACE_PATH,
    ...(storageClassName === '' ? {} : { storageClassName }),
    size: own?.size ?? defaults.size,
    accessMode: own?.accessMode ?? defaults.accessMode,
  };
}

/** The claim, owned by the run: it lives as long as the run (retries included) and goes with it. */
export function workspaceClaim(
  ref: RunRef,
  workspace: Workspace,
  owner: NonNullable<NonNullable<V1PersistentVolumeClaim['metadata']>['ownerReferences']>[number],
): V1PersistentVolumeClaim {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: workspace.claimName,
      namespace: ref.namespace,
      labels: { [LABELS.run]: labelValue(ref.name) },
      ownerReferences: [owner],
    },
    spec: {
      accessModes: [workspace.accessMode],
      resources: { requests: { storage: workspace.size } },
      ...(workspace.storageClassName === undefined ? {} : { storageClassName: workspace.storageClassName }),
    },
  };
}

/**
 * The directory a step runs in. Its own `dir`, then its Pod settings' `workingDir`, else the
 * DAG's `workingDir`; relative ones resolve against the
 * DAG's `workingDir` inside the workspace. Without a workspace and without any of them: the
 * image's default (undefined).
 */
export function stepWorkingDir(dag: Dag, step: Step, workspace: Workspace | undefined): string | undefined {
  const base = workspace === undefined ? dag.workingDir : posix.resolve(workspace.mountPath, dag.workingDir ?? '.');
  const own = step.dir ?? step.kubernetes?.workingDir;
  if (own === undefined) return base;
  if (posix.isAbsolute(own) || base === undefined || !posix.isAbsolute(base)) return own;
  return posix.resolve(base, own);
}

/** Where DAG_RUN_LOG_FILE and the step stdout/stderr files are: shared in the workspace, else Pod-local. */
export function stepLogDir(workspace: Workspace | undefined): string {
  return workspace === undefined ? POD_LOG_DIR : posix.join(workspace.mountPath, '.kubedag', 'logs');
}

/** A step's log file: one per attempt, the name safe as one path element. */
export function stepLogFile(logDir: string, stepName: string, attempt: number, stream: 'stdout' | 'stderr'): string {
  return posix.join(logDir, `${stepName.replace(/[/\0]/g, '_')}.${String(attempt)}.${stream}`);
}

/** DAG_RUN_LOG_FILE: a line per step start and end, by every step of the run that shares it. */
export function runLogFile(logDir: string): string {
  return posix.join(logDir, 'run.log');
}
