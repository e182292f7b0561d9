/**
 * The chart installed from `make image`'s image on a real cluster (kind, through `make
 * kind-e2e`): its Pods run that image, a DAG applied as a resource runs to success with its
 * steps as Pods, the API server answers Dagu's API and serves the web UI through its Service,
 * and a jq step runs in a Pod of the same image (the chart's default runner image).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import { GROUP, VERSION } from '../../core/resources/constants.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import { imageReference } from '../../image/reference.ts';
import { DaguApi, e2eClients, forwardService, until, type Forwarded } from './support.ts';

const { kc, core, custom } = e2eClients();
const { namespace, release } = inject('e2e');
const reference = imageReference();
const suffix = Date.now().toString(36);
let api: Forwarded;
let dagu: DaguApi;

/** The manifest's and the config's digests of the archive `make image` wrote. */
async function archiveDigests(): Promise<string[]> {
  const extract = tar.extract();
  extract.end(await readFile(join(import.meta.dirname, '../../dist/image', `kubedag-${reference.tag}.oci.tar`)));
  const files = new Map<string, Buffer>();
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    if (entry.header.size < 1_000_000) files.set(entry.header.name, Buffer.concat(chunks));
  }
  const index = JSON.parse(files.get('index.json')?.toString() ?? '{}') as { manifests: { digest: string }[] };
  const manifestDigest = index.manifests[0]?.digest ?? '';
  const manifest = JSON.parse(
    files.get(`blobs/sha256/${manifestDigest.slice('sha256:'.length)}`)?.toString() ?? '{}',
  ) as { config: { digest: string } };
  return [manifestDigest, manifest.config.digest];
}

beforeAll(async () => {
  api = await forwardService(kc, namespace, `${release}-api`, 8080);
  dagu = new DaguApi(api.url);
});

afterAll(async () => {
  await api.close();
});

describe('the chart on a cluster, from make image', () => {
  it('runs the operator and the API server in the image make image built', async () => {
    const digests = await archiveDigests();
    const pods = (await core.listNamespacedPod({ namespace, labelSelector: `app.kubernetes.io/instance=${release}` }))
      .items;
    expect(pods.map((p) => p.metadata?.labels?.['app.kubernetes.io/component']).sort()).toEqual(
      expect.arrayContaining(['api-server', 'operator']),
    );
    for (const pod of pods) {
      const container = pod.status?.containerStatuses?.[0];
      expect(container?.ready, pod.metadata?.name).toBe(true);
      expect(container?.image).toContain(reference.repository.split('/').pop() ?? '');
      expect(
        digests.some((d) => container?.imageID.includes(d) === true),
        `${pod.metadata?.name ?? ''} runs ${container?.imageID ?? ''}, not ${digests.join(' or ')}`,
      ).toBe(true);
    }
  });

  it('runs a DAG applied as a resource to success, its step as a Pod', async () => {
    const name = `e2e-hello-${suffix}`;
    const loaded = loadDag('steps:\n  - echo hello from kind\n', { fileName: name });
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'dags',
      body: dagManifest(name, loaded.documents, namespace),
    });
    await custom.createNamespacedCustomObject({
      group: GROUP,
      version: VERSION,
      namespace,
      plural: 'dagruns',
      body: {
        apiVersion: `${GROUP}/${VERSION}`,
        kind: 'DAGRun',
        metadata: { name: `${name}-1` },
        spec: { dagRef: { name } },
      },
    });
    await until(
      `${name}-1 to succeed`,
      async () => {
        const run = (await custom.getNamespacedCustomObject({
          group: GROUP,
          version: VERSION,
          namespace,
          plural: 'dagruns',
          name: `${name}-1`,
        })) as { status?: { statusLabel?: string } };
        return run.status?.statusLabel === 'succeeded';
      },
      180_000,
    );
  });

  it("answers Dagu's API and serves the web UI through its Service", async () => {
    const name = `e2e-api-${suffix}`;
    // start() fails unless the DAG is created (201) and started (200).
    await dagu.start(name, 'steps:\n  - echo hello over the API\n', 'a1');
    expect((await dagu.finished(name, 'a1')).statusLabel).toBe('succeeded');
    expect(await dagu.log(name, 'a1', 'cmd_1')).toContain('hello over the API');
    const page = await fetch(`${api.url}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });

  it("runs a jq step in a Pod of the image (the chart's default runner image)", async () => {
    const name = `e2e-jq-${suffix}`;
    const spec =
      'steps:\n  - {name: pick, executor: {type: jq, config: {raw: true}}, command: .say, script: \'{"say": "picked on kind"}\'}\n';
    await dagu.start(name, spec, 'j1');
    expect((await dagu.finished(name, 'j1')).statusLabel).toBe('succeeded');
    // The log endpoint's content has no final newline (as the integration tests of the API server expect).
    expect(await dagu.log(name, 'j1', 'pick')).toBe('picked on kind');
  });
});
