/**
 * `make image-lock`: pins the image's Debian packages (image/debian-set.ts: the closure of the
 * roots less the exclusions) to the versions this machine's apt offers now, with their SHA-256
 * and size, in image/debian.lock.json. Run it on the distribution the lock names (Debian 12
 * here) after a point or security release retired a pin, and commit the result.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { EXCLUDED, parseControl, resolve, ROOTS, type Control } from './debian-set.ts';
import { LOCK_FILE, type DebianLock, type LockedPackage } from './debian.ts';
import { run } from './exec.ts';

/** The candidate versions' control stanzas of `names`, by package name. */
async function candidates(names: readonly string[]): Promise<Map<string, Control>> {
  const out = (await run('apt-cache', ['show', '--no-all-versions', ...names])).stdout.toString();
  return new Map(parseControl(out).map((c) => [c.Package ?? '', c]));
}

function osRelease(text: string): Record<string, string> {
  return Object.fromEntries(
    text.split('\n').flatMap((line) => {
      const match = /^([A-Z_]+)=("?)(.*)\2$/.exec(line);
      return match === null ? [] : [[match[1] ?? '', match[3] ?? '']];
    }),
  );
}

export async function lock(): Promise<DebianLock> {
  const index = new Map<string, Control>();
  for (;;) {
    const resolution = resolve(ROOTS, index, EXCLUDED);
    if (resolution.missing.length === 0) {
      const os = osRelease(await readFile('/etc/os-release', 'utf8'));
      const architecture = (await run('dpkg', ['--print-architecture'])).stdout.toString().trim();
      const packages: LockedPackage[] = resolution.packages.map((name) => {
        const c = index.get(name) ?? {};
        if (c.SHA256 === undefined || c.Version === undefined)
          throw new Error(`apt-cache gave no version or SHA256 for ${name}`);
        return {
          name,
          version: c.Version,
          architecture: c.Architecture ?? architecture,
          sha256: c.SHA256,
          size: Number(c.Size ?? 0),
        };
      });
      return {
        distro: `${os.ID ?? 'debian'}-${os.VERSION_ID ?? ''}`,
        codename: os.VERSION_CODENAME ?? '',
        architecture,
        packages,
      };
    }
    const found = await candidates(resolution.missing);
    const unknown = resolution.missing.filter((name) => !found.has(name));
    if (unknown.length > 0)
      throw new Error(
        `apt knows no package ${unknown.join(', ')} (a virtual name? add the package that provides it to ROOTS, or the name to EXCLUDED)`,
      );
    for (const [name, control] of found) index.set(name, control);
  }
}

if (import.meta.main) {
  const result = await lock();
  await writeFile(LOCK_FILE, `${JSON.stringify(result, null, 2)}\n`);
  console.log(
    `pinned ${String(result.packages.length)} packages of ${result.distro} (${result.architecture}) in ${LOCK_FILE}`,
  );
}
