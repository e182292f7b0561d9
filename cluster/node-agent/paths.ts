/**
 * Paths inside a container's root, resolved as the container will see them. Symlinks are
 * followed as if the root were `/` (an absolute link points into the root, never out of it):
 * a mount path such as /var/run/secrets, where /var/run links to /run, must land on the root's
 * /run, not on the host's. The file system is handed in, so the resolution is pure.
 */
import { posix } from 'node:path';

export type Entry =
  { readonly kind: 'dir' | 'file' | 'missing' } | { readonly kind: 'symlink'; readonly target: string };

/** What the resolution may look at: one container path, as the container will see it. */
export type View = (containerPath: string) => Entry;

/** `/a//b/../c/` -> `/a/c`; relative paths are taken from `/`. */
export function cleanPath(path: string): string {
  return posix.resolve('/', path);
}

const parts = (path: string): string[] =>
  cleanPath(path)
    .split('/')
    .filter((p) => p !== '');

/** Path components below `/`: `/` is 0, `/tmp` is 1; mounts are made shallowest first. */
export const depth = (path: string): number => parts(path).length;

/** Whether `path` is `base` or below it. */
export function within(path: string, base: string): boolean {
  const b = cleanPath(base);
  const p = cleanPath(path);
  return p === b || p.startsWith(b === '/' ? '/' : `${b}/`);
}

const MAX_LINKS = 40;

/**
 * The path `path` names inside the root, every symlink on the way followed within the root
 * (the last component too, like a runtime placing a mount). Components that do not exist yet
 * are kept as written; they will be created.
 */
export function resolveInRoot(path: string, view: View): string {
  let pending = parts(path);
  let resolved: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const [head = '', ...rest] = pending;
    pending = rest;
    if (head === '.') continue;
    if (head === '..') {
      resolved = resolved.slice(0, -1);
      continue;
    }
    const candidate = `/${[...resolved, head].join('/')}`;
    const entry = view(candidate);
    if (entry.kind !== 'symlink') {
      resolved.push(head);
      // Below a missing component nothing can be a link: keep the rest as written.
      if (entry.kind === 'missing') return cleanPath(`/${[...resolved, ...pending].join('/')}`);
      continue;
    }
    links += 1;
    if (links > MAX_LINKS) throw new Error(`too many levels of symbolic links in ${path}`);
    if (entry.target.startsWith('/')) resolved = [];
    pending = [...entry.target.split('/').filter((p) => p !== ''), ...pending];
  }
  return `/${resolved.join('/')}`;
}

/**
 * Where `name` is found as exec would find it: a name with a slash as it is, else the first
 * executable file of that name in `searchPath`. Undefined when there is none; a runtime then
 * fails the start. Execute permission is not checked (the view knows kinds only).
 */
export function findExecutable(name: string, searchPath: string, view: View, cwd: string): string | undefined {
  const isFile = (path: string): boolean => view(resolveInRoot(path, view)).kind === 'file';
  if (name.includes('/')) return isFile(posix.resolve(cwd, name)) ? posix.resolve(cwd, name) : undefined;
  return searchPath
    .split(':')
    .filter((dir) => dir !== '')
    .map((dir) => posix.join(posix.resolve(cwd, dir), name))
    .find(isFile);
}
