import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubedagClients } from '../../core/kube/client.ts';
import {
  ignoreAlreadyExists,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isNotFound,
} from '../../core/kube/errors.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../builders/dag-run.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { core, custom } = clients();
const kube = kubedagClients(custom);
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'kclient');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

const run = (name: string): DagRunResource =>
  dagRun(name)
    .spec({ definition: { steps: [{ name: 'a', command: 'true' }] } })
    .build();

describe('ResourceClient on the real kube-apiserver', () => {
  it('creates with apiVersion and kind filled in, gets and lists by label', async () => {
    const created = await kube.runs.create(
      ns,
      dagRun('c1')
        .label({ team: 'a' })
        .spec({ definition: { steps: [{ name: 'a', command: 'true' }] } })
        .build(),
    );
    expect([created.apiVersion, created.kind, created.metadata?.name]).toEqual(['kubedag.io/v1alpha1', 'DAGRun', 'c1']);
    await kube.runs.create(ns, run('c2'));
    expect((await kube.runs.get(ns, 'c1')).metadata?.uid).toBe(created.metadata?.uid);
    expect((await kube.runs.list(ns, { labelSelector: 'team=a' })).items.map((r) => r.metadata?.name)).toEqual(['c1']);
    expect(
      (await kube.runs.list()).items
        .filter((r) => r.metadata?.namespace === ns)
        .map((r) => r.metadata?.name)
        .sort(),
    ).toEqual(['c1', 'c2']);
  });

  it('tells a missing object, a taken name and a stale write apart', async () => {
    const missing = await kube.runs.get(ns, 'nope').catch((error: unknown) => error);
    expect([isNotFound(missing), isConflict(missing), isAlreadyExists(missing)]).toEqual([true, false, false]);
    expect(await ignoreNotFound(kube.runs.get(ns, 'nope'))).toBeUndefined();
    await kube.runs.create(ns, run('taken'));
    const taken = await kube.runs.create(ns, run('taken')).catch((error: unknown) => error);
    expect([isNotFound(taken), isConflict(taken), isAlreadyExists(taken)]).toEqual([false, false, true]);
    expect(await ignoreAlreadyExists(kube.runs.create(ns, run('taken')))).toBeUndefined();
    const first = await kube.runs.get(ns, 'taken');
    await kube.runs.mergePatch(ns, 'taken', { metadata: { annotations: { touched: 'yes' } } });
    const stale = await kube.runs
      .replace({ ...first, metadata: { ...first.metadata, labels: { late: 'yes' } } })
      .catch((error: unknown) => error);
    expect([isNotFound(stale), isConflict(stale), isAlreadyExists(stale)]).toEqual([false, true, false]);
  });

  it('merge-patches and JSON-patches the spec, with a version test that refuses a stale patch', async () => {
    const created = await kube.runs.create(ns, run('p1'));
    const merged = await kube.runs.mergePatch(ns, 'p1', { spec: { stop: true } });
    expect(merged.spec.stop).toBe(true);
    const stale = await kube.runs
      .jsonPatch(ns, 'p1', [
        { op: 'test', path: '/metadata/resourceVersion', value: created.metadata?.resourceVersion },
        { op: 'replace', path: '/spec/stop', value: false },
      ])
      .catch((error: unknown) => error);
    expect(isConflict(stale) || (stale as { code?: number }).code === 422).toBe(true);
    const patched = await kube.runs.jsonPatch(ns, 'p1', [
      { op: 'test', path: '/metadata/resourceVersion', value: merged.metadata?.resourceVersion },
      { op: 'replace', path: '/spec/stop', value: false },
    ]);
    expect(patched.spec.stop).toBe(false);
  });

  it('writes the status subresource by replace and by merge patch, leaving the spec alone', async () => {
    const created = await kube.runs.create(ns, run('s1'));
    const replaced = await kube.runs.replaceStatus({
      ...created,
      spec: { ...created.spec, stop: true },
      status: { status: 1, statusLabel: 'running' },
    });
    expect([replaced.status?.statusLabel, replaced.spec.stop]).toEqual(['running', undefined]);
    const patched = await kube.runs.mergePatchStatus(ns, 's1', { status: { progress: '0/1' } });
    expect([patched.status?.statusLabel, patched.status?.progress]).toEqual(['running', '0/1']);
  });

  it('deletes only the object with the uid it was given', async () => {
    const first = await kube.runs.create(ns, run('d1'));
    await kube.runs.delete(ns, 'd1');
    await kube.runs.create(ns, run('d1'));
    const refused = await kube.runs
      .delete(ns, 'd1', { uid: first.metadata?.uid ?? '' })
      .catch((error: unknown) => error);
    expect(isConflict(refused)).toBe(true);
    expect(await ignoreNotFound(kube.runs.get(ns, 'd1'))).toBeDefined();
    const second = await kube.runs.get(ns, 'd1');
    await kube.runs.delete(ns, 'd1', { uid: second.metadata?.uid ?? '', propagationPolicy: 'Background' });
    expect(await ignoreNotFound(kube.runs.get(ns, 'd1'))).toBeUndefined();
  });

  it('names the watch path of a kind in one namespace or in all', () => {
    expect([kube.dags.path(), kube.queues.path('team')]).toEqual([
      '/apis/kubedag.io/v1alpha1/dags',
      '/apis/kubedag.io/v1alpha1/namespaces/team/dagqueues',
    ]);
  });
});
