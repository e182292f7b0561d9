/**
 * The image's software bill of materials, CycloneDX 1.6 JSON: the image itself (its digest and
 * tag), every Debian package with its pinned SHA-256, the Node.js binary, every npm package
 * installed in /app/node_modules (from npm's record of what it installed) and Kubedag. Pure:
 * the same inputs give the same bytes (sorted lists, the build's time, a serial number derived
 * from the image digest), so two builds of one image have one SBOM.
 */
import { createHash } from 'node:crypto';
import { Enums, Models, Serialize, Spec, SPDX } from '@cyclonedx/cyclonedx-library';
import { PackageURL } from 'packageurl-js';

export interface SbomInput {
  readonly image: { readonly repository: string; readonly tag: string; readonly digest: string };
  /** SOURCE_DATE_EPOCH, seconds. */
  readonly epoch: number;
  /** os-release ID-VERSION_ID, e.g. debian-12: the purl's distro qualifier. */
  readonly distro: string;
  readonly debs: readonly {
    readonly name: string;
    readonly version: string;
    readonly architecture: string;
    readonly sha256: string;
    readonly source?: string;
  }[];
  readonly node: { readonly version: string; readonly platform: string; readonly sha256: string };
  /** npm's record of the installed tree (node_modules/.package-lock.json): path -> package. */
  readonly npm: Readonly<
    Record<
      string,
      { readonly version?: string; readonly integrity?: string; readonly license?: string; readonly name?: string }
    >
  >;
  readonly app: {
    readonly name: string;
    readonly version: string;
    readonly license: string;
    readonly description: string;
  };
}

/** An SPDX id, an SPDX expression, or a name that is neither (e.g. "SEE LICENSE IN ..."). */
function license(value: string): Models.License {
  const id: unknown = value;
  if (SPDX.isSupportedSpdxId(id)) return new Models.SpdxLicense(id);
  if (/\b(OR|AND|WITH)\b/.test(value)) return new Models.LicenseExpression(value.replace(/^\((.*)\)$/, '$1'));
  return new Models.NamedLicense(value);
}

/** npm's integrity (sha512-<base64>) as a CycloneDX hash. */
function integrityHash(integrity: string | undefined): [Enums.HashAlgorithm, string] | undefined {
  const match = /^sha512-([A-Za-z0-9+/=]+)$/.exec(integrity ?? '');
  return match?.[1] === undefined
    ? undefined
    : [Enums.HashAlgorithm['SHA-512'], Buffer.from(match[1], 'base64').toString('hex')];
}

/** A name-based UUID (RFC 9562 version 5 layout over SHA-256) of the image digest: stable per image. */
export function serialNumber(digest: string): string {
  const bytes = createHash('sha256').update(`kubedag-image-sbom:${digest}`).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function component(
  type: Enums.ComponentType,
  name: string,
  version: string,
  purl: string,
  extra: { hash?: [Enums.HashAlgorithm, string] | undefined; license?: string | undefined; group?: string } = {},
): Models.Component {
  const made = new Models.Component(type, name, {
    version,
    purl,
    bomRef: purl,
    ...(extra.group === undefined ? {} : { group: extra.group }),
  });
  if (extra.hash !== undefined) made.hashes.set(extra.hash[0], extra.hash[1]);
  if (extra.license !== undefined && extra.license !== '') made.licenses.add(license(extra.license));
  return made;
}

function npmComponents(npm: SbomInput['npm']): Models.Component[] {
  const seen = new Map<string, Models.Component>();
  for (const [path, pkg] of Object.entries(npm)) {
    if (!path.startsWith('node_modules/') || pkg.version === undefined) continue;
    const fullName = pkg.name ?? path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
    const slash = fullName.startsWith('@') ? fullName.indexOf('/') : -1;
    const scope = slash === -1 ? undefined : fullName.slice(0, slash);
    const name = fullName.slice(slash + 1);
    const purl = new PackageURL('npm', scope, name, pkg.version, undefined, undefined).toString();
    if (!seen.has(purl))
      seen.set(
        purl,
        component(Enums.ComponentType.Library, name, pkg.version, purl, {
          hash: integrityHash(pkg.integrity),
          license: pkg.license,
          ...(scope === undefined ? {} : { group: scope }),
        }),
      );
  }
  return [...seen.values()];
}

/** The SBOM as CycloneDX 1.6 JSON text. */
export function sbomJson(input: SbomInput): string {
  const { image } = input;
  const imagePurl = new PackageURL(
    'oci',
    undefined,
    image.repository.split('/').pop() ?? image.repository,
    image.digest,
    { repository_url: image.repository, tag: image.tag },
    undefined,
  ).toString();
  const bom = new Models.Bom({ serialNumber: serialNumber(image.digest) });
  bom.metadata.timestamp = new Date(input.epoch * 1000);
  bom.metadata.tools.components.add(
    new Models.Component(Enums.ComponentType.Application, 'kubedag image build', {
      version: input.app.version,
      group: 'kubedag',
    }),
  );
  bom.metadata.component = new Models.Component(Enums.ComponentType.Container, image.repository, {
    version: image.tag,
    purl: imagePurl,
    bomRef: imagePurl,
  });

  for (const deb of input.debs) {
    const qualifiers = { arch: deb.architecture, distro: input.distro };
    const purl = new PackageURL(
      'deb',
      'debian',
      deb.name,
      deb.version,
      deb.source === undefined ? qualifiers : { ...qualifiers, upstream: deb.source },
      undefined,
    ).toString();
    bom.components.add(
      component(Enums.ComponentType.Library, deb.name, deb.version, purl, {
        hash: [Enums.HashAlgorithm['SHA-256'], deb.sha256],
      }),
    );
  }
  const nodePurl = new PackageURL(
    'npm',
    undefined,
    `node-${input.node.platform}`,
    input.node.version,
    undefined,
    undefined,
  ).toString();
  const node = component(Enums.ComponentType.Platform, 'node', input.node.version, nodePurl, {
    hash: [Enums.HashAlgorithm['SHA-256'], input.node.sha256],
    license: 'MIT',
  });
  node.description = `Node.js, the official binary from the npm package node-${input.node.platform}`;
  bom.components.add(node);
  for (const made of npmComponents(input.npm)) bom.components.add(made);
  const appPurl = new PackageURL('npm', undefined, input.app.name, input.app.version, undefined, undefined).toString();
  const app = component(Enums.ComponentType.Application, input.app.name, input.app.version, appPurl, {
    license: input.app.license,
  });
  app.description = input.app.description;
  bom.components.add(app);

  const serializer = new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6));
  return `${serializer.serialize(bom, { sortLists: true, space: 2 })}\n`;
}
