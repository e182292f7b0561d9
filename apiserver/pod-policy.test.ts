import type { CoreV1Api } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { NamespacePolicy } from './pod-policy.ts';

type Reads = Pick<CoreV1Api, 'readNamespace' | 'listNamespacedServiceAccount'>;

/** A fake API that answers the namespace's labels and allowed accounts, counting reads, or refuses as RBAC would. */
function api(labels: Record<string, string> | 'forbidden', accounts: string[] = []): Reads & { reads: number } {
  const fake = {
    reads: 0,
    readNamespace: () => {
      fake.reads += 1;
      return labels === 'forbidden'
        ? Promise.reject(Object.assign(new Error('forbidden'), { code: 403 }))
        : Promise.resolve({ metadata: { name: 'team', labels } });
    },
    listNamespacedServiceAccount: () =>
      labels === 'forbidden'
        ? Promise.reject(new Error('forbidden'))
        : Promise.resolve({ items: accounts.map((name) => ({ metadata: { name } })) }),
  };
  return fake;
}

describe("the API server's view of its namespace's pod policy", () => {
  it.each<{ name: string; labels: Record<string, string> | 'forbidden'; want: unknown }>([
    {
      name: 'the setting without a label',
      labels: {},
      want: { level: 'baseline', namespace: 'team', serviceAccounts: new Set(['etl']) },
    },
    {
      name: 'the label over the setting',
      labels: { 'kubedag.io/pod-policy': 'privileged' },
      want: { level: 'privileged', namespace: 'team', serviceAccounts: new Set(['etl']) },
    },
    {
      name: 'the setting and no service account check when it may not read',
      labels: 'forbidden',
      want: { level: 'baseline', namespace: 'team' },
    },
  ])('takes $name', async ({ labels, want }) => {
    expect(await new NamespacePolicy(api(labels, ['etl']), 'team', 'baseline').context()).toEqual(want);
  });

  it('reads once for a burst of requests, and again after a few seconds', async () => {
    let now = 0;
    const fake = api({});
    const policy = new NamespacePolicy(fake, 'team', 'baseline', () => now);
    await Promise.all([policy.context(), policy.context(), policy.context()]);
    expect(fake.reads).toBe(1);
    now = 6_000;
    await policy.context();
    expect(fake.reads).toBe(2);
  });
});
