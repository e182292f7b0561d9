import { describe, expect, it } from 'vitest';
import { chartStepExecRole, stepExecRoleOf } from './step-exec-role.ts';

const deployment = (args: string[]): unknown => ({
  kind: 'Deployment',
  spec: { template: { spec: { containers: [{ args }] } } },
});
const role = (name: string, verbs: string[]): unknown => ({
  kind: 'ClusterRole',
  metadata: { name, labels: { 'app.kubernetes.io/managed-by': 'Helm' } },
  rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs }],
});

describe('the step exec ClusterRole of the local cluster', () => {
  it('is the one the rendered chart names in its operator flag, with the chart rules: get Pods, exec into them, read their logs', () => {
    const got = chartStepExecRole();
    expect(got.metadata?.name).toBe('kubedag-step-exec');
    expect(got.rules?.map((r) => [r.resources, r.verbs])).toEqual([
      [['pods'], ['get']],
      [['pods/exec'], ['create', 'get']],
      [['pods/log'], ['get']],
    ]);
  });

  it('follows the operator flag, not the first ClusterRole, and does not claim Helm manages it', () => {
    const got = stepExecRoleOf([
      role('other', ['get']),
      deployment(['--workers=8', '--step-exec-role=mine']),
      role('mine', ['create']),
    ]);
    expect([got.metadata?.name, got.rules?.[0]?.verbs, got.metadata?.labels?.['app.kubernetes.io/managed-by']]).toEqual(
      ['mine', ['create'], 'kubedag-local-cluster'],
    );
  });

  it.each([
    {
      name: 'no operator flag',
      documents: [role('mine', ['create'])],
      message: 'the rendered chart has no operator flag --step-exec-role=<role>',
    },
    {
      name: 'a flag naming a role the chart does not create',
      documents: [deployment(['--step-exec-role=gone']), null],
      message: 'the rendered chart names step exec role gone but does not create it',
    },
  ])('fails clearly on $name', ({ documents, message }) => {
    expect(() => stepExecRoleOf(documents)).toThrow(message);
  });
});
