/**
 * Which Debian packages make the image's root file system, as pure functions over control
 * data. The set is the dependency closure (Pre-Depends and Depends) of a few roots, less
 * packages that only the package manager's own machinery needs: the image has no dpkg and
 * runs no maintainer scripts, so what those scripts call never runs there.
 */

/** What the image needs Debian for, and why each root is there. */
export const ROOTS: readonly string[] = [
  // The dynamic loader, libc and the C++ runtime the official Node.js binary links against.
  'libc6',
  'libstdc++6',
  // A POSIX shell and the utilities of the operator's step runner script (operator/run/pods/step-pod.ts:
  // mktemp, mkfifo, tee, date, dirname, sed, grep): runner Pods run this image.
  'dash',
  'coreutils',
  'sed',
  'grep',
  // The file system's skeleton (/etc/os-release, /tmp, ...), /etc/services and /etc/protocols,
  // and Mozilla's CA certificates for programs that read the system store.
  'base-files',
  'netbase',
  'ca-certificates',
];

/**
 * Dependencies left out, each with the reason. A dependency group (alternatives) any of whose
 * names is here counts as met.
 */
export const EXCLUDED: Readonly<Record<string, string>> = {
  dpkg: 'no package manager in the image: packages are unpacked at build time',
  'install-info': 'grep registers its info manual with it; manuals are not shipped',
  debianutils: "dash's maintainer scripts register /bin/sh with add-shell; none run",
  awk: "base-files' maintainer scripts use it; none run",
  debconf: "ca-certificates' maintainer scripts ask questions through it; none run",
  'debconf-2.0': 'the virtual name of debconf',
  openssl: 'update-ca-certificates (a maintainer script) uses it; the build writes the bundle itself',
};

export type Control = Readonly<Record<string, string>>;

/** The stanzas of a Debian control file (apt-cache show, a Packages index, DEBIAN/control). */
export function parseControl(text: string): Control[] {
  const stanzas: Control[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const fields: Record<string, string> = {};
    let last: string | undefined;
    for (const line of block.split('\n')) {
      if (line === '') continue;
      if (/^\s/.test(line) && last !== undefined) {
        fields[last] = `${fields[last] ?? ''}\n${line.trim()}`;
        continue;
      }
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error(`not a control field: ${JSON.stringify(line)}`);
      last = line.slice(0, colon);
      fields[last] = line.slice(colon + 1).trim();
    }
    if (Object.keys(fields).length > 0) stanzas.push(fields);
  }
  return stanzas;
}

/** Groups of alternative package names: `a (>= 1) | b, c:any` -> [[a, b], [c]]. Versions are not compared. */
export function dependencyGroups(control: Control): string[][] {
  const text = [control['Pre-Depends'], control.Depends]
    .filter((t): t is string => t !== undefined && t !== '')
    .join(', ');
  if (text === '') return [];
  return text.split(',').map((group) =>
    group.split('|').map((alternative) => {
      const name = /^\s*([a-z0-9][a-z0-9+.-]*)/.exec(alternative)?.[1];
      if (name === undefined)
        throw new Error(`${control.Package ?? '?'}: cannot read the dependency ${JSON.stringify(alternative.trim())}`);
      return name;
    }),
  );
}

/** Names a package answers to: its own and its Provides. */
function namesOf(control: Control): string[] {
  const provides = (control.Provides ?? '')
    .split(',')
    .map((p) => /^\s*([a-z0-9][a-z0-9+.-]*)/.exec(p)?.[1])
    .filter((p): p is string => p !== undefined);
  return [control.Package ?? '', ...provides];
}

export interface Resolution {
  /** Package names in the closure, sorted. */
  readonly packages: readonly string[];
  /** Names the index did not hold: look them up and resolve again. */
  readonly missing: readonly string[];
}

/**
 * The closure of `roots` over `index` (name -> control): a group already met by a chosen
 * package (or its Provides) or by an excluded name adds nothing; otherwise its first
 * alternative is chosen, as apt would.
 */
export function resolve(
  roots: readonly string[],
  index: ReadonlyMap<string, Control>,
  excluded: Readonly<Record<string, string>>,
): Resolution {
  const chosen = new Map<string, Control>();
  const missing = new Set<string>();
  const queue = [...roots];
  // Names the chosen packages and those still queued answer to: a group one of them meets needs nothing more.
  const provided = (): Set<string> =>
    new Set(
      [...chosen.values(), ...queue.map((n) => index.get(n)).filter((c): c is Control => c !== undefined)].flatMap(
        namesOf,
      ),
    );
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (chosen.has(name) || Object.hasOwn(excluded, name)) continue;
    const control = index.get(name);
    if (control === undefined) {
      missing.add(name);
      continue;
    }
    chosen.set(name, control);
    const have = provided();
    for (const group of dependencyGroups(control)) {
      if (
        group.some(
          (alternative) => have.has(alternative) || Object.hasOwn(excluded, alternative) || queue.includes(alternative),
        )
      )
        continue;
      const first = group[0] ?? '';
      queue.push(first);
      for (const name of namesOf(index.get(first) ?? { Package: first })) have.add(name);
    }
  }
  return { packages: [...chosen.keys()].sort(), missing: [...missing].sort() };
}

/** Dependency groups of the given packages that nothing in the set (or the exclusions) meets: `pkg: a | b`. */
export function unmetDependencies(controls: readonly Control[], excluded: Readonly<Record<string, string>>): string[] {
  const have = new Set(controls.flatMap(namesOf));
  return controls.flatMap((control) =>
    dependencyGroups(control)
      .filter((group) => !group.some((alternative) => have.has(alternative) || Object.hasOwn(excluded, alternative)))
      .map((group) => `${control.Package ?? '?'}: ${group.join(' | ')}`),
  );
}
