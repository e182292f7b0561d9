/**
 * `make image`: Kubedag's OCI image, built without a container engine, as an oci-archive in
 * dist/image/ with its CycloneDX SBOM beside it. Four layers: Debian's pinned packages
 * (image/debian.lock.json), the pinned Node.js, the production npm dependencies, Kubedag.
 * Reproducible: every time and owner in it comes from SOURCE_DATE_EPOCH (default: the time of
 * the commit checked out), so the same inputs give the same digest.
 * docs/decisions/2026-11-24-image.md
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  API_SERVER_BUNDLE,
  bundleApiServer,
  bundleOperator,
  chartOperatorLaunch,
  OPERATOR_BUNDLE,
} from '../build/bundles.ts';
import { bundleStepRunner } from '../build/step-bundle.ts';
import { APP, appEntries, moduleIncluded, nodeEntries, productionModules, treeEntries } from './app.ts';
import { EXCLUDED, unmetDependencies } from './debian-set.ts';
import { ensureDebs, readDeb, readLock, type Deb } from './debian.ts';
import { run } from './exec.ts';
import {
  descriptiveLabels,
  imageConfig,
  imageIndex,
  imageManifest,
  OCI_LAYOUT,
  type BuiltLayer,
  type Document,
} from './oci.ts';
import { imageReference, referenceString, ROOT, type ImageReference } from './reference.ts';
import { debianEntries, USER } from './rootfs.ts';
import { sbomJson, type SbomInput } from './sbom.ts';
import { file, writeLayer, writeTar, type LayerEntry } from './tar.ts';

export interface BuildOptions {
  /** Where the archive and the SBOM go (default dist/image). */
  readonly outDir?: string;
  /** Install the npm dependencies anew instead of from the build cache. */
  readonly fresh?: boolean;
  readonly log?: (line: string) => void;
}

export interface BuiltImage {
  readonly reference: ImageReference;
  /** The manifest's digest: what a registry and `kubectl get pod -o yaml` show as imageID. */
  readonly digest: string;
  readonly archive: string;
  readonly sbom: string;
  readonly layers: readonly BuiltLayer[];
}

/** Node.js's and Debian's names of this machine's architecture. */
const ARCHITECTURES: Readonly<Record<string, { debian: string; node: string }>> = {
  x64: { debian: 'amd64', node: 'linux-x64' },
  arm64: { debian: 'arm64', node: 'linux-arm64' },
};

/** SOURCE_DATE_EPOCH when set, else the checked-out commit's time; and the commit, when there is one. */
async function sourceDate(): Promise<{ epoch: number; revision?: string }> {
  const head = await run('git', ['log', '-1', '--format=%ct %H'], { cwd: ROOT }).then(
    (r) => r.stdout.toString().trim().split(' '),
    () => [],
  );
  const fromEnv = process.env.SOURCE_DATE_EPOCH;
  const epoch = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Number(head[0]);
  if (!Number.isInteger(epoch) || epoch < 0)
    throw new Error('no build time: set SOURCE_DATE_EPOCH (seconds since 1970) outside a git checkout');
  return head[1] === undefined ? { epoch } : { epoch, revision: head[1] };
}

async function debianLayer(
  log: (line: string) => void,
): Promise<{ debs: Deb[]; distro: string; architecture: string }> {
  const lock = await readLock();
  const machine = ARCHITECTURES[process.arch]?.debian;
  if (machine !== lock.architecture)
    throw new Error(
      `image/debian.lock.json pins ${lock.architecture} packages; this machine is ${machine ?? process.arch}`,
    );
  const paths = await ensureDebs(lock, log);
  const debs = await Promise.all(lock.packages.map((p) => readDeb(p, paths.get(p.name) ?? '')));
  const unmet = unmetDependencies(
    debs.map((d) => d.control),
    EXCLUDED,
  );
  if (unmet.length > 0)
    throw new Error(`the pinned packages leave dependencies unmet (run \`make image-lock\`): ${unmet.join('; ')}`);
  return { debs, distro: lock.distro, architecture: lock.architecture };
}

async function pinnedNode(): Promise<{ home: string; version: string }> {
  const bin = (await run(join(ROOT, 'scripts/ensure-node.sh'), ['--pinned'])).stdout.toString().trim();
  const version = (await readFile(join(ROOT, '.node-version'), 'utf8')).trim();
  return { home: dirname(bin), version };
}

function archiveEntries(documents: readonly Document[], layers: readonly BuiltLayer[], index: Document): LayerEntry[] {
  const blob = (digest: string): string => `blobs/sha256/${digest.replace(/^sha256:/, '')}`;
  return [
    file('oci-layout', OCI_LAYOUT),
    file('index.json', index.bytes),
    ...documents.map((d) => file(blob(d.digest), d.bytes)),
    ...layers.map((l): LayerEntry => ({
      path: blob(l.digest),
      type: 'file',
      mode: 0o644,
      uid: 0,
      gid: 0,
      source: l.file,
      size: l.size,
    })),
  ];
}

const sha256File = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  readonly license: string;
}

export async function buildImage(options: BuildOptions = {}): Promise<BuiltImage> {
  const log = options.log ?? ((line: string): void => void process.stderr.write(`[image] ${line}\n`));
  const outDir = options.outDir ?? join(ROOT, 'dist/image');
  const reference = imageReference();
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as PackageJson;
  const { epoch, revision } = await sourceDate();
  const arch = ARCHITECTURES[process.arch];
  if (arch === undefined)
    throw new Error(`no image for ${process.arch}: Node.js and Debian packages exist for x64 and arm64`);

  await mkdir(outDir, { recursive: true });
  const staging = await mkdtemp(join(outDir, '.build-'));
  const modules = await productionModules(log, options.fresh === true);
  try {
    const debian = await debianLayer(log);
    const node = await pinnedNode();
    const bundles = join(staging, 'dist');
    await bundleOperator(join(bundles, OPERATOR_BUNDLE.replace(/^dist\//, '')));
    await bundleApiServer(join(bundles, API_SERVER_BUNDLE.replace(/^dist\//, '')));
    await bundleStepRunner(join(bundles, 'kubedag-step.mjs'));
    const blobs = join(staging, 'blobs');
    await mkdir(blobs);
    const layers = await buildLayers({ debian, node, arch, modules: modules.dir, bundles, blobs, epoch, pkg });
    const labels = descriptiveLabels({
      title: pkg.name,
      description: pkg.description,
      version: reference.tag,
      ...(revision === undefined ? {} : { revision }),
      licenses: pkg.license,
      epoch,
    });
    const config = imageConfig(
      {
        architecture: arch.debian,
        user: `${String(USER.uid)}:${String(USER.gid)}`,
        env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'NODE_ENV=production'],
        workingDir: `/${APP}`,
        // The operator as the chart starts it by default (its Deployment's command says the same).
        cmd: ['node', ...chartOperatorLaunch().flags, OPERATOR_BUNDLE],
        exposedPorts: [8080, 8081],
        labels,
      },
      layers,
      epoch,
    );
    const manifest = imageManifest(config, layers, labels);
    const index = imageIndex(manifest, arch.debian, reference);

    const archive = join(outDir, `kubedag-${reference.tag}.oci.tar`);
    await writeTar(archiveEntries([config, manifest], layers, index), epoch, `${archive}.partial`);
    await rename(`${archive}.partial`, archive);
    const sbom = join(outDir, `kubedag-${reference.tag}.sbom.cdx.json`);
    await writeSbom(sbom, { reference, digest: manifest.digest, epoch, debian, node, arch, modules: modules.dir, pkg });
    return { reference, digest: manifest.digest, archive, sbom, layers: layers.map((l) => ({ ...l, file: '' })) };
  } finally {
    await modules.dispose();
    await rm(staging, { recursive: true, force: true });
  }
}

type Debian = Awaited<ReturnType<typeof debianLayer>>;
type PinnedNode = Awaited<ReturnType<typeof pinnedNode>>;
type Architecture = NonNullable<(typeof ARCHITECTURES)[string]>;

/** The image's four layers, oldest first: Debian, Node.js, the production modules, Kubedag itself. */
async function buildLayers(input: {
  debian: Debian;
  node: PinnedNode;
  arch: Architecture;
  modules: string;
  bundles: string;
  blobs: string;
  epoch: number;
  pkg: PackageJson;
}): Promise<BuiltLayer[]> {
  const { debian, node, arch, pkg } = input;
  const layers: BuiltLayer[] = [];
  const add = async (createdBy: string, entries: LayerEntry[]): Promise<void> => {
    layers.push({ ...(await writeLayer(entries, input.epoch, input.blobs)), createdBy });
  };
  await add(
    `debian: ${String(debian.debs.length)} packages of ${debian.distro} (image/debian.lock.json)`,
    debianEntries(debian.debs.map((d) => ({ name: d.locked.name, control: d.control, entries: d.entries }))),
  );
  await add(`node ${node.version} (npm package node-${arch.node})`, await nodeEntries(node.home));
  await add(
    'npm ci --omit=dev --ignore-scripts',
    await treeEntries(
      input.modules,
      APP,
      (p) => (p === 'node_modules' || p.startsWith('node_modules/')) && moduleIncluded(p),
    ),
  );
  await add(
    `kubedag ${pkg.version}: CLI sources, operator, API server and step runner bundles, web UI`,
    await appEntries(input.bundles, join(ROOT, 'dist/ui')),
  );
  return layers;
}

/** The CycloneDX SBOM of what the layers hold. */
async function writeSbom(
  path: string,
  input: {
    reference: ReturnType<typeof imageReference>;
    digest: string;
    epoch: number;
    debian: Debian;
    node: PinnedNode;
    arch: Architecture;
    modules: string;
    pkg: PackageJson;
  },
): Promise<void> {
  const { debian, node, arch, pkg } = input;
  const npmRecord = JSON.parse(await readFile(join(input.modules, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: SbomInput['npm'];
  };
  await writeFile(
    path,
    sbomJson({
      image: { ...input.reference, digest: input.digest },
      epoch: input.epoch,
      distro: debian.distro,
      debs: debian.debs.map((d) => ({
        ...d.locked,
        ...(d.control.Source === undefined ? {} : { source: d.control.Source.split(' ')[0] ?? d.locked.name }),
      })),
      node: { version: node.version, platform: arch.node, sha256: await sha256File(join(node.home, 'bin/node')) },
      npm: npmRecord.packages,
      app: { name: pkg.name, version: pkg.version, license: pkg.license, description: pkg.description },
    }),
  );
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { out: { type: 'string' }, fresh: { type: 'boolean', default: false } } });
  const started = Date.now();
  const built = await buildImage({ ...(values.out === undefined ? {} : { outDir: values.out }), fresh: values.fresh });
  const size = (await stat(built.archive)).size;
  console.log(`${referenceString(built.reference)}@${built.digest}`);
  console.log(
    `archive ${built.archive} (${(size / 1024 / 1024).toFixed(1)} MiB, ${String(built.layers.length)} layers, built in ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  console.log(`sbom    ${built.sbom}`);
}
