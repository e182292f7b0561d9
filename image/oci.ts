/**
 * The OCI image's JSON documents (config, manifest, index) as pure functions, and the
 * oci-archive: a tar of the OCI image layout that `skopeo copy oci-archive:`, `kind load
 * image-archive`, `ctr images import` and `docker load` read. JSON is written compactly with
 * keys in a fixed order: its bytes, and so its digest, depend on the inputs alone.
 */
import { createHash } from 'node:crypto';
import type { Blob, Layer } from './tar.ts';

export const MEDIA_TYPES = {
  index: 'application/vnd.oci.image.index.v1+json',
  manifest: 'application/vnd.oci.image.manifest.v1+json',
  config: 'application/vnd.oci.image.config.v1+json',
  layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
} as const;

export interface ImageSettings {
  readonly architecture: string;
  readonly user: string;
  readonly env: readonly string[];
  readonly workingDir: string;
  readonly cmd: readonly string[];
  readonly exposedPorts: readonly number[];
  readonly labels: Readonly<Record<string, string>>;
}

export interface BuiltLayer extends Layer {
  /** What the layer holds, for the history (`docker history`, registries' UIs). */
  readonly createdBy: string;
}

/** A document's bytes and descriptor. */
export interface Document extends Blob {
  readonly bytes: Buffer;
}

export function document(value: unknown): Document {
  const bytes = Buffer.from(JSON.stringify(value));
  return { bytes, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, size: bytes.length };
}

const isoTime = (epoch: number): string => new Date(epoch * 1000).toISOString().replace('.000Z', 'Z');

export function imageConfig(settings: ImageSettings, layers: readonly BuiltLayer[], epoch: number): Document {
  const created = isoTime(epoch);
  return document({
    created,
    architecture: settings.architecture,
    os: 'linux',
    config: {
      User: settings.user,
      ExposedPorts: Object.fromEntries(settings.exposedPorts.map((port) => [`${String(port)}/tcp`, {}])),
      Env: settings.env,
      Cmd: settings.cmd,
      WorkingDir: settings.workingDir,
      Labels: settings.labels,
    },
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
    history: layers.map((l) => ({ created, created_by: l.createdBy })),
  });
}

export function imageManifest(
  config: Blob,
  layers: readonly Blob[],
  annotations: Readonly<Record<string, string>>,
): Document {
  return document({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.manifest,
    config: { mediaType: MEDIA_TYPES.config, digest: config.digest, size: config.size },
    layers: layers.map((l) => ({ mediaType: MEDIA_TYPES.layer, digest: l.digest, size: l.size })),
    annotations,
  });
}

/**
 * The layout's index: one manifest, named twice. org.opencontainers.image.ref.name holds the
 * tag, as the OCI layout specifies (skopeo's `oci-archive:FILE:TAG`); containerd's
 * io.containerd.image.name holds the full reference, which `ctr images import`, `kind load
 * image-archive` and `docker load` name the image after.
 */
export function imageIndex(
  manifest: Blob,
  architecture: string,
  reference: { repository: string; tag: string },
): Document {
  return document({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.index,
    manifests: [
      {
        mediaType: MEDIA_TYPES.manifest,
        digest: manifest.digest,
        size: manifest.size,
        platform: { architecture, os: 'linux' },
        annotations: {
          'io.containerd.image.name': `${reference.repository}:${reference.tag}`,
          'org.opencontainers.image.ref.name': reference.tag,
        },
      },
    ],
  });
}

export const OCI_LAYOUT = JSON.stringify({ imageLayoutVersion: '1.0.0' });

/** The OCI annotation keys (also image labels) that describe the image. */
export function descriptiveLabels(input: {
  title: string;
  description: string;
  version: string;
  revision?: string;
  licenses: string;
  epoch: number;
  source?: string;
}): Record<string, string> {
  const labels: Record<string, string> = {
    'org.opencontainers.image.created': isoTime(input.epoch),
    'org.opencontainers.image.description': input.description,
    'org.opencontainers.image.licenses': input.licenses,
  };
  if (input.revision !== undefined) labels['org.opencontainers.image.revision'] = input.revision;
  if (input.source !== undefined) labels['org.opencontainers.image.source'] = input.source;
  labels['org.opencontainers.image.title'] = input.title;
  labels['org.opencontainers.image.version'] = input.version;
  return labels;
}
