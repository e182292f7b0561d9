/**
 * The DAG CRD keeps a Dagu 2.x file's keys (issue 26): the mappings both dialects name alike
 * (`container`, `ssh`) are typed with the keys of both, and the API server prunes none of a
 * 2.x file's settings from the stored object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dagManifest } from '../../core/resources/dag.ts';
import { dagResourceName } from '../../core/resources/names.ts';
import { loadDag } from '../../core/dag/index.ts';
import { clients, createNamespace, deleteNamespace } from './support.ts';

const { core, kube } = clients();
let ns = '';

beforeAll(async () => {
  ns = await createNamespace(core, 'crd-dialects');
});

afterAll(async () => {
  await deleteNamespace(core, ns);
});

// Two files: a DAG may not set both container and ssh.
const CONTAINER = `
timeout_sec: 60
container:
  image: alpine:3.20
  keep_container: true
  working_dir: /work
  pull_policy: missing
steps:
  - run: echo hi
`;

const SSH = `
timeout_sec: 60
ssh:
  user: deploy
  host: example.test
  strict_host_key: false
  known_host_file: /etc/ssh/known
steps:
  - run: echo hi
`;

describe('a DAG resource of a Dagu 2.x file', () => {
  async function stored(fileName: string, text: string): Promise<Record<string, unknown>> {
    const load = loadDag(text, { fileName });
    expect(load.errors).toEqual([]);
    await kube.dags.create(ns, dagManifest(fileName, load.documents, ns));
    return (await kube.dags.get(ns, dagResourceName(fileName))).spec;
  }

  it('keeps the 2.x keys of container and ssh as written', async () => {
    const container = await stored('in-container', CONTAINER);
    const ssh = await stored('over-ssh', SSH);
    expect([container.timeout_sec, container.container, ssh.ssh]).toEqual([
      60,
      { image: 'alpine:3.20', keep_container: true, working_dir: '/work', pull_policy: 'missing' },
      { user: 'deploy', host: 'example.test', strict_host_key: false, known_host_file: '/etc/ssh/known' },
    ]);
  });
});
