/**
 * The real node's images, built here and imported into its containerd (never pulled: no
 * registry is reached): the pause image that holds each Pod's sandbox (a few lines of C linked
 * statically) and a small step image, Debian's busybox-static (pinned in images.lock.json) with
 * its applets linked under /bin. Both are written with the project's own OCI writer (image/),
 * the same that `make image` uses, into the per-user cache, named by a hash of their inputs.
 */
import { createHash } from 'node:crypto';
import { access, chmod, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../../build/cache-dir.ts';
import { ensureDebs, readDeb, type DebianLock } from '../../image/debian.ts';
import { run } from '../../image/exec.ts';
import { imageConfig, imageIndex, imageManifest, OCI_LAYOUT, type BuiltLayer, type Document } from '../../image/oci.ts';
import { directory, file, symlink, writeLayer, writeTar, type LayerEntry } from '../../image/tar.ts';

export interface NodeImage {
  /** What Pods name in `image:` (imagePullPolicy Never or IfNotPresent). */
  readonly reference: string;
  readonly archive: string;
}

export const PAUSE_IMAGE = 'kubedag.local/pause:1';
export const STEP_IMAGE = 'kubedag.local/busybox:1.35.0';
/** 2026-01-01: every file of these images carries it, so the same inputs give the same digest. */
const EPOCH = 1_767_225_600;
/** Bumped when what is built from the same inputs changes. */
const RECIPE = '1';

/** Sleeps until told to stop; reaps nothing (Pods here share no PID namespace). */
export const PAUSE_SOURCE = `#include <signal.h>
#include <unistd.h>
static void stop(int sig) { (void)sig; _exit(0); }
int main(void) {
  signal(SIGINT, stop);
  signal(SIGTERM, stop);
  for (;;) pause();
}
`;

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Users a step may name; the rest run by number. */
const ETC: LayerEntry[] = [
  file('etc/passwd', 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n'),
  file('etc/group', 'root:x:0:\nnogroup:x:65534:\n'),
  directory('root', 0o700),
  directory('tmp', 0o1777),
];

async function writeArchive(
  name: string,
  entries: LayerEntry[],
  cmd: readonly string[],
  reference: string,
  path: string,
): Promise<void> {
  const staging = await mkdtemp(join(path, '..', `.${name}-`));
  try {
    const layer: BuiltLayer = {
      ...(await writeLayer(entries, EPOCH, staging)),
      createdBy: `kubedag real node: ${name}`,
    };
    const config = imageConfig(
      {
        architecture: 'amd64',
        user: '',
        env: ['PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'],
        workingDir: '/',
        cmd,
        exposedPorts: [],
        labels: {},
      },
      [layer],
      EPOCH,
    );
    const manifest = imageManifest(config, [layer], {});
    const [repository = '', tag = ''] = reference.split(/:(?=[^:]*$)/);
    const index = imageIndex(manifest, 'amd64', { repository, tag });
    const blob = (d: Document | BuiltLayer): string => `blobs/sha256/${d.digest.replace(/^sha256:/, '')}`;
    const archive: LayerEntry[] = [
      file('oci-layout', OCI_LAYOUT),
      file('index.json', index.bytes),
      file(blob(config), config.bytes),
      file(blob(manifest), manifest.bytes),
      { path: blob(layer), type: 'file', mode: 0o644, uid: 0, gid: 0, source: layer.file, size: layer.size },
    ];
    await writeTar(archive, EPOCH, join(staging, 'image.tar'));
    await rename(join(staging, 'image.tar'), path);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function imagesDir(env: NodeJS.ProcessEnv): string {
  return join(cacheDir(env), 'image', 'real-node');
}

const hashOf = (...parts: (string | Buffer)[]): string =>
  parts
    .reduce((h, p) => h.update(p).update('\0'), createHash('sha256'))
    .digest('hex')
    .slice(0, 12);

/** The pause image's archive, compiled and packed when the cache lacks it. */
export async function ensurePauseImage(env: NodeJS.ProcessEnv = process.env): Promise<NodeImage> {
  const dir = imagesDir(env);
  const archive = join(dir, `pause-${hashOf(RECIPE, PAUSE_SOURCE, process.arch)}.oci.tar`);
  if (await exists(archive)) return { reference: PAUSE_IMAGE, archive };
  if (process.arch !== 'x64')
    throw new Error(`the real node's images are built for amd64; this machine is ${process.arch}`);
  await mkdir(dir, { recursive: true });
  const work = await mkdtemp(join(dir, '.pause-src-'));
  try {
    await writeFile(join(work, 'pause.c'), PAUSE_SOURCE);
    await run('gcc', ['-static', '-Os', '-s', '-o', join(work, 'pause'), join(work, 'pause.c')]);
    await writeArchive(
      'pause',
      [file('pause', await readFile(join(work, 'pause')), 0o755)],
      ['/pause'],
      PAUSE_IMAGE,
      archive,
    );
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return { reference: PAUSE_IMAGE, archive };
}

/** The step image's archive (busybox-static and its applets), built when the cache lacks it. */
export async function ensureStepImage(
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = () => undefined,
): Promise<NodeImage> {
  const lock = JSON.parse(await readFile(join(import.meta.dirname, 'images.lock.json'), 'utf8')) as DebianLock;
  const pkg = lock.packages[0];
  if (pkg === undefined) throw new Error('cluster/real-node/images.lock.json pins no package');
  const dir = imagesDir(env);
  const archive = join(dir, `busybox-${hashOf(RECIPE, pkg.sha256)}.oci.tar`);
  if (await exists(archive)) return { reference: STEP_IMAGE, archive };
  const debs = await ensureDebs(lock, log, join(cacheDir(env), 'image', 'debs'));
  const deb = await readDeb(pkg, debs.get(pkg.name) ?? '');
  const busybox = deb.entries.find((e) => e.path === 'bin/busybox');
  if (busybox?.type !== 'file' || !('content' in busybox)) throw new Error(`${pkg.name} holds no bin/busybox`);
  await mkdir(dir, { recursive: true });
  // The applets this build has, as busybox itself lists them (bin/sh, usr/bin/wget, ...).
  const work = await mkdtemp(join(dir, '.busybox-'));
  let applets: string[];
  try {
    await writeFile(join(work, 'busybox'), busybox.content);
    await chmod(join(work, 'busybox'), 0o755);
    applets = (await run(join(work, 'busybox'), ['--list-full'])).stdout
      .toString()
      .split('\n')
      .filter((line) => line !== '' && line !== 'bin/busybox');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  const links = applets.map((path) => symlink(path, '/bin/busybox'));
  await writeArchive('busybox', [{ ...busybox, mode: 0o755 }, ...links, ...ETC], ['/bin/sh'], STEP_IMAGE, archive);
  return { reference: STEP_IMAGE, archive };
}
