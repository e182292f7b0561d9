import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiextensionsV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { dagRunSegment } from '../builders/dag-run-segment.ts';
import { clients, createNamespace, deleteNamespace, kubectl } from './support.ts';

const { kc, core, custom } = clients();
const group = 'kubedag.io';
const version = 'v1alpha1';
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'crds');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

const fixtures = join(import.meta.dirname, '../fixtures/dags');

describe('the Kubedag CRDs', () => {
  it('are Established with short names and the kubedag category', async () => {
    const api = kc.makeApiClient(ApiextensionsV1Api);
    for (const plural of ['dags', 'dagruns', 'dagqueues', 'dagrunsegments']) {
      const crd = await api.readCustomResourceDefinition({ name: `${plural}.${group}` });
      expect(crd.status?.conditions?.find((c) => c.type === 'Established')?.status).toBe('True');
      expect(crd.spec.names.categories).toEqual(['kubedag']);
    }
    expect(await kubectl('api-resources', '--api-group=kubedag.io', '-o', 'name')).toBe(
      'dagqueues.kubedag.io\ndagruns.kubedag.io\ndagrunsegments.kubedag.io\ndags.kubedag.io\n',
    );
  });

  it.each(readdirSync(fixtures).filter((f) => f.endsWith('.yaml')))(
    'keep every field of %s exactly as written',
    async (file) => {
      const load = loadDag(readFileSync(join(fixtures, file), 'utf8'), { fileName: file.replace(/\.yaml$/, '') });
      const manifest = dagManifest(file.replace(/\.yaml$/, ''), load.documents, ns);
      await custom.createNamespacedCustomObject({ group, version, namespace: ns, plural: 'dags', body: manifest });
      const stored = (await custom.getNamespacedCustomObject({
        group,
        version,
        namespace: ns,
        plural: 'dags',
        name: manifest.metadata.name,
      })) as { spec: unknown };
      expect(stored.spec).toEqual(manifest.spec);
    },
  );

  it('keep a DAGRunSegment as created: a change of its records is refused', async () => {
    const body = dagRunSegment('sealed')
      .namespace(ns)
      .forRun('r')
      .steps(0, [{ name: 'a', status: 4, statusLabel: 'succeeded' }])
      .build();
    await custom.createNamespacedCustomObject({ group, version, namespace: ns, plural: 'dagrunsegments', body });
    const patch = { spec: { nodes: [{ name: 'a', status: 2, statusLabel: 'failed' }] } };
    await expect(
      custom.patchNamespacedCustomObject(
        { group, version, namespace: ns, plural: 'dagrunsegments', name: 'sealed', body: patch },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('reject a DAG whose typed field has the wrong type at apply time', async () => {
    const body = {
      apiVersion: `${group}/${version}`,
      kind: 'DAG',
      metadata: { name: 'typed', namespace: ns },
      spec: { timeoutSec: 'thirty', steps: ['echo'] },
    };
    await expect(
      custom.createNamespacedCustomObject({ group, version, namespace: ns, plural: 'dags', body }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('list DAGs and runs under the kubedag category with their printer columns', async () => {
    const output = await kubectl('get', 'kubedag', '-n', ns, '-o', 'wide');
    expect(output).toMatch(/NAME\s+SCHEDULE\s+SUSPENDED\s+LAST RUN\s+VALID\s+AGE/);
    expect(output).toContain('dag.kubedag.io/etl-nightly');
  });
});

describe('a DAGRun', () => {
  const run = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: `${group}/${version}`,
    kind: 'DAGRun',
    metadata: { name, namespace: ns },
    spec,
  });

  it('needs exactly one of dagRef and definition', async () => {
    await expect(
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace: ns,
        plural: 'dagruns',
        body: run('neither', { params: 'A=1' }),
      }),
    ).rejects.toMatchObject({ code: 422 });
    await expect(
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace: ns,
        plural: 'dagruns',
        body: run('both', { dagRef: { name: 'x' }, definition: { steps: ['echo'] } }),
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('accepts stop as its only change', async () => {
    await custom.createNamespacedCustomObject({
      group,
      version,
      namespace: ns,
      plural: 'dagruns',
      body: run('r1', { dagRef: { name: 'etl-nightly' }, params: 'A=1', dagRunId: 'r1' }),
    });
    const patch = (spec: Record<string, unknown>): Promise<unknown> =>
      custom.patchNamespacedCustomObject({
        group,
        version,
        namespace: ns,
        plural: 'dagruns',
        name: 'r1',
        body: [{ op: 'replace', path: '/spec', value: spec }],
      });
    await patch({ dagRef: { name: 'etl-nightly' }, params: 'A=1', dagRunId: 'r1', stop: true });
    await expect(
      patch({ dagRef: { name: 'etl-nightly' }, params: 'A=2', dagRunId: 'r1', stop: true }),
    ).rejects.toMatchObject({ code: 422 });
    await expect(patch({ dagRef: { name: 'other' }, params: 'A=1', dagRunId: 'r1', stop: true })).rejects.toMatchObject(
      { code: 422 },
    );
    await expect(patch({ dagRef: { name: 'etl-nightly' }, dagRunId: 'r1', stop: true })).rejects.toMatchObject({
      code: 422,
    });
    await expect(
      patch({ dagRef: { name: 'etl-nightly' }, params: 'A=1', dagRunId: 'r2', stop: true }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it('takes a write-once snapshot after creation, but never a second one', async () => {
    const patch = (op: 'add' | 'replace', value: unknown): Promise<unknown> =>
      custom.patchNamespacedCustomObject({
        group,
        version,
        namespace: ns,
        plural: 'dagruns',
        name: 'r1',
        body: [{ op, path: '/spec/snapshot', value }],
      });
    await patch('add', { steps: ['echo one'] });
    await expect(patch('replace', { steps: ['echo two'] })).rejects.toMatchObject({ code: 422 });
  });

  it('has a status subresource that spec writes cannot touch', async () => {
    await custom.patchNamespacedCustomObjectStatus({
      group,
      version,
      namespace: ns,
      plural: 'dagruns',
      name: 'r1',
      body: [{ op: 'add', path: '/status', value: { status: 1, statusLabel: 'running', progress: '0/3' } }],
    });
    const output = await kubectl('get', 'dr', 'r1', '-n', ns);
    expect(output).toMatch(/NAME\s+DAG\s+STATUS\s+PROGRESS\s+AGE\nr1\s+\S*\s+running\s+0\/3/);
  });
});
