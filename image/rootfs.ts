/**
 * The Debian layer: the pinned packages' files as dpkg would unpack them, less documentation,
 * plus what their maintainer scripts or an installer would have written (accounts, the CA
 * bundle, the package database scanners read). Pure: packages in, entries out.
 */
import type { Control } from './debian-set.ts';
import { directory, file, type LayerEntry } from './tar.ts';

/** The user the image runs as (the chart's runAsUser). */
export const USER = { name: 'kubedag', uid: 1000, gid: 1000, home: 'home/kubedag' } as const;

export interface PackageFiles {
  readonly name: string;
  /** The package's control stanza as dpkg-deb prints it. */
  readonly control: Control;
  readonly entries: readonly LayerEntry[];
}

/**
 * Manuals, translations and documentation other than each package's copyright file (which
 * its licence asks to keep) are left out: nothing in the image reads them.
 */
export function keep(path: string): boolean {
  if (/^usr\/share\/(man|info|locale|lintian|linda|menu|bug)(\/|$)/.test(path)) return false;
  const doc = /^usr\/share\/doc\/[^/]+\/(.+)$/.exec(path);
  return doc === null || doc[1] === 'copyright';
}

/** The status file of one package in the layout scanners read without dpkg (var/lib/dpkg/status.d). */
export function statusStanza(control: Control): string {
  const fields = Object.entries(control).filter(([name]) => name !== 'Status');
  const [first, ...rest] = fields;
  const ordered = first === undefined ? [] : [first, ['Status', 'install ok installed'] as [string, string], ...rest];
  return `${ordered.map(([name, value]) => `${name}: ${value.replace(/\n/g, '\n ')}`).join('\n')}\n`;
}

/** Mozilla's certificates from ca-certificates as one PEM bundle, in path order, as update-ca-certificates writes it. */
export function caBundle(entries: readonly LayerEntry[]): Buffer {
  const certificates = entries
    .filter(
      (e): e is Extract<LayerEntry, { content: Buffer }> =>
        e.type === 'file' && 'content' in e && /^usr\/share\/ca-certificates\/.+\.crt$/.test(e.path),
    )
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  if (certificates.length === 0) throw new Error('ca-certificates brought no certificates');
  return Buffer.concat(
    certificates.map((c) =>
      c.content.toString().endsWith('\n') ? c.content : Buffer.concat([c.content, Buffer.from('\n')]),
    ),
  );
}

const PASSWD = [
  'root:x:0:0:root:/root:/bin/sh',
  `${USER.name}:x:${String(USER.uid)}:${String(USER.gid)}:Kubedag:/${USER.home}:/bin/sh`,
  'nobody:x:65534:65534:nobody:/nonexistent:/bin/false',
];
const GROUP = ['root:x:0:', `${USER.name}:x:${String(USER.gid)}:`, 'nogroup:x:65534:'];
/** glibc's lookups from files, names from DNS after /etc/hosts (which Kubernetes mounts). */
const NSSWITCH = [
  'passwd: files',
  'group: files',
  'shadow: files',
  'hosts: files dns',
  'networks: files',
  'protocols: files',
  'services: files',
];

/** Files of the image that no package holds. */
function generated(packages: readonly PackageFiles[], all: readonly LayerEntry[]): LayerEntry[] {
  return [
    file('etc/passwd', `${PASSWD.join('\n')}\n`),
    file('etc/group', `${GROUP.join('\n')}\n`),
    file('etc/nsswitch.conf', `${NSSWITCH.join('\n')}\n`),
    file('etc/ssl/certs/ca-certificates.crt', caBundle(all)),
    directory(USER.home, 0o755, USER.uid, USER.gid),
    directory('var/lib/dpkg/status.d'),
    ...packages.map((p) => file(`var/lib/dpkg/status.d/${p.name}`, statusStanza(p.control))),
  ];
}

/** The layer's entries: every package's kept files (a directory may come from several), then the generated ones. */
export function debianEntries(packages: readonly PackageFiles[]): LayerEntry[] {
  const byPath = new Map<string, { entry: LayerEntry; from: string }>();
  for (const pkg of packages) {
    for (const entry of pkg.entries.filter((e) => keep(e.path))) {
      const earlier = byPath.get(entry.path);
      if (earlier === undefined) byPath.set(entry.path, { entry, from: pkg.name });
      else if (earlier.entry.type !== 'directory' || entry.type !== 'directory')
        throw new Error(`${entry.path} is in both ${earlier.from} and ${pkg.name}`);
    }
  }
  const all = [...byPath.values()].map((v) => v.entry);
  const extra = generated(packages, all);
  for (const entry of extra)
    if (byPath.has(entry.path) && entry.type !== 'directory')
      throw new Error(`${entry.path} is generated but also in ${byPath.get(entry.path)?.from ?? '?'}`);
  return [...all, ...extra.filter((e) => !(e.type === 'directory' && byPath.has(e.path)))];
}
