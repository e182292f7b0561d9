import { describe, expect, it } from 'vitest';
import { loadDag, type Step } from '../../../core/dag/index.ts';
import { runWorkspace, stepLogDir, stepLogFile, stepWorkingDir, workspaceClaim } from './workspace.ts';

const defaults = { enabled: true, storageClassName: '', size: '1Gi', accessMode: 'ReadWriteOnce' as const };

function dagOf(yaml: string): { dag: ReturnType<typeof loadDag>['dag']; step: Step } {
  const load = loadDag(yaml, { fileName: 'ws' });
  expect(load.errors).toEqual([]);
  return { dag: load.dag, step: load.dag.steps[0] as Step };
}

describe('the run workspace', () => {
  it.each([
    {
      name: 'a DAG without workingDir gets the workspace at /workspace',
      yaml: 'steps: [x]',
      want: { mountPath: '/workspace', size: '1Gi', accessMode: 'ReadWriteOnce' },
    },
    {
      name: 'an absolute DAG workingDir is where the workspace is mounted',
      yaml: 'workingDir: /data/in\nsteps: [x]',
      want: { mountPath: '/data/in' },
    },
    {
      name: 'a relative DAG workingDir leaves the workspace at /workspace',
      yaml: 'workingDir: sub\nsteps: [x]',
      want: { mountPath: '/workspace' },
    },
  ])('$name', ({ yaml, want }) => {
    expect(runWorkspace(dagOf(yaml).dag, defaults, 'run-1')).toMatchObject(want);
  });

  it('takes no storage class when the operator names none, so the cluster default applies', () => {
    expect(runWorkspace(dagOf('steps: [x]').dag, defaults, 'run-1')).not.toHaveProperty('storageClassName');
  });

  it('is turned off by the operator default', () => {
    expect(runWorkspace(dagOf('steps: [x]').dag, { ...defaults, enabled: false }, 'run-1')).toBeUndefined();
  });

  it('builds a claim owned by the run with its access mode, size and class', () => {
    const workspace = {
      claimName: 'run-1-workspace-x',
      mountPath: '/workspace',
      storageClassName: 'fast',
      size: '2Gi',
      accessMode: 'ReadWriteMany' as const,
    };
    const owner = { apiVersion: 'kubedag.io/v1alpha1', kind: 'DAGRun', name: 'run-1', uid: 'u1', controller: true };
    const claim = workspaceClaim(
      { name: 'run-1', namespace: 'team', uid: 'u1', dagName: 'd', dagRunId: 'r' },
      workspace,
      owner,
    );
    expect(claim.metadata).toMatchObject({ name: 'run-1-workspace-x', namespace: 'team', ownerReferences: [owner] });
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteMany'],
      resources: { requests: { storage: '2Gi' } },
      storageClassName: 'fast',
    });
  });

  it.each([
    { name: 'a step runs in the workspace by default', yaml: 'steps: [x]', workspace: true, want: '/workspace' },
    {
      name: 'a relative DAG workingDir is a directory inside the workspace',
      yaml: 'workingDir: sub\nsteps: [x]',
      workspace: true,
      want: '/workspace/sub',
    },
    {
      name: 'a relative step dir resolves against the DAG workingDir',
      yaml: 'workingDir: /data\nsteps: [{command: x, dir: out}]',
      workspace: true,
      want: '/data/out',
    },
    {
      name: 'an absolute step dir is taken as it is',
      yaml: 'steps: [{command: x, dir: /src}]',
      workspace: true,
      want: '/src',
    },
    {
      name: "the DAG container workingDir is the container's, not a step Pod's",
      yaml: 'container: {image: a, workingDir: /ctr}\nsteps: [x]',
      workspace: true,
      want: '/workspace',
    },
    {
      name: 'without a workspace a step inherits the DAG workingDir',
      yaml: 'workingDir: /dag\nsteps: [x]',
      workspace: false,
      want: '/dag',
    },
    {
      name: 'without a workspace or any directory the image default applies',
      yaml: 'steps: [x]',
      workspace: false,
      want: undefined,
    },
  ])('$name', ({ yaml, workspace, want }) => {
    const { dag, step } = dagOf(yaml);
    expect(stepWorkingDir(dag, step, workspace ? runWorkspace(dag, defaults, 'run-1') : undefined)).toBe(want);
  });

  it.each([
    {
      name: 'step log files are in the workspace when there is one',
      workspace: true,
      want: '/workspace/.kubedag/logs/build.1.stdout',
    },
    { name: 'step log files are Pod-local without a workspace', workspace: false, want: '/tmp/kubedag/build.1.stdout' },
  ])('$name', ({ workspace, want }) => {
    const dir = stepLogDir(workspace ? runWorkspace(dagOf('steps: [x]').dag, defaults, 'r') : undefined);
    expect(stepLogFile(dir, 'build', 1, 'stdout')).toBe(want);
  });

  it('keeps a step name with a slash as one file name', () => {
    expect(stepLogFile('/logs', 'a/b', 0, 'stderr')).toBe('/logs/a_b.0.stderr');
  });
});
