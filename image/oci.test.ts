import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { descriptiveLabels, document, imageConfig, imageIndex, imageManifest, MEDIA_TYPES } from './oci.ts';

const layer = { digest: 'sha256:aa', diffId: 'sha256:bb', size: 10, file: '', createdBy: 'debian' };
const settings = {
  architecture: 'amd64',
  user: '1000:1000',
  env: ['PATH=/bin'],
  workingDir: '/app',
  cmd: ['node', 'x.mjs'],
  exposedPorts: [8080],
  labels: { a: 'b' },
};

describe('OCI documents', () => {
  it('are compact JSON whose digest is the SHA-256 of their bytes', () => {
    const doc = document({ b: 1, a: [2] });
    expect(doc.bytes.toString()).toBe('{"b":1,"a":[2]}');
    expect(doc.digest).toBe(`sha256:${createHash('sha256').update('{"b":1,"a":[2]}').digest('hex')}`);
    expect(doc.size).toBe(15);
  });

  it('give the config the runtime settings, the layers as diff_ids and one history entry per layer, all at the build time', () => {
    const config = JSON.parse(imageConfig(settings, [layer], 1_700_000_000).bytes.toString()) as Record<
      string,
      unknown
    >;
    expect(config).toEqual({
      created: '2023-11-14T22:13:20Z',
      architecture: 'amd64',
      os: 'linux',
      config: {
        User: '1000:1000',
        ExposedPorts: { '8080/tcp': {} },
        Env: ['PATH=/bin'],
        Cmd: ['node', 'x.mjs'],
        WorkingDir: '/app',
        Labels: { a: 'b' },
      },
      rootfs: { type: 'layers', diff_ids: ['sha256:bb'] },
      history: [{ created: '2023-11-14T22:13:20Z', created_by: 'debian' }],
    });
  });

  it('give the manifest the config and gzip layers by digest and size', () => {
    const manifest = JSON.parse(
      imageManifest({ digest: 'sha256:cc', size: 5 }, [layer], { x: 'y' }).bytes.toString(),
    ) as Record<string, unknown>;
    expect(manifest).toEqual({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.manifest,
      config: { mediaType: MEDIA_TYPES.config, digest: 'sha256:cc', size: 5 },
      layers: [{ mediaType: MEDIA_TYPES.layer, digest: 'sha256:aa', size: 10 }],
      annotations: { x: 'y' },
    });
  });

  it('name the image in the index by its tag (OCI layout) and by its full reference (containerd, kind, docker load)', () => {
    const index = JSON.parse(
      imageIndex({ digest: 'sha256:dd', size: 7 }, 'amd64', {
        repository: 'ghcr.io/kubedag/kubedag',
        tag: '0.1.0',
      }).bytes.toString(),
    ) as { manifests: unknown[] };
    expect(index.manifests).toEqual([
      {
        mediaType: MEDIA_TYPES.manifest,
        digest: 'sha256:dd',
        size: 7,
        platform: { architecture: 'amd64', os: 'linux' },
        annotations: {
          'io.containerd.image.name': 'ghcr.io/kubedag/kubedag:0.1.0',
          'org.opencontainers.image.ref.name': '0.1.0',
        },
      },
    ]);
  });

  it('label the image with the OCI annotation keys, the revision only when known', () => {
    const base = { title: 'kubedag', description: 'd', version: '0.1.0', licenses: 'Apache-2.0', epoch: 0 };
    expect(descriptiveLabels(base)).toEqual({
      'org.opencontainers.image.created': '1970-01-01T00:00:00Z',
      'org.opencontainers.image.description': 'd',
      'org.opencontainers.image.licenses': 'Apache-2.0',
      'org.opencontainers.image.title': 'kubedag',
      'org.opencontainers.image.version': '0.1.0',
    });
    expect(descriptiveLabels({ ...base, revision: 'abc' })['org.opencontainers.image.revision']).toBe('abc');
  });
});
