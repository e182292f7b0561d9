/**
 * The image's users, as a container runtime reads them from the image's /etc/passwd and
 * /etc/group: the host is the image here, so the host's files are read once at agent start.
 * They decide a container's primary group when runAsGroup is not set, the groups a user is a
 * member of, and HOME.
 */
import { readFileSync } from 'node:fs';

export interface ImageUser {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly home: string;
}

export interface ImageUsers {
  readonly users: readonly ImageUser[];
  /** Group id -> the user names listed as its members. */
  readonly members: ReadonlyMap<number, readonly string[]>;
}

const fields = (text: string): string[][] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));

/** Reads passwd and group text; malformed lines are skipped, as libc skips them. */
export function parseImageUsers(passwd: string, group: string): ImageUsers {
  const users = fields(passwd).flatMap(([name = '', , uid = '', gid = '', , home = '']) =>
    /^\d+$/.test(uid) && /^\d+$/.test(gid) ? [{ name, uid: Number(uid), gid: Number(gid), home }] : [],
  );
  const members = new Map(
    fields(group).flatMap(([, , gid = '', list = '']) =>
      /^\d+$/.test(gid) ? [[Number(gid), list.split(',').filter((m) => m !== '')] as const] : [],
    ),
  );
  return { users, members };
}

export function readImageUsers(root = '/'): ImageUsers {
  const read = (path: string): string => {
    try {
      return readFileSync(`${root}${path}`, 'utf8');
    } catch {
      return '';
    }
  };
  return parseImageUsers(read('etc/passwd'), read('etc/group'));
}

export function userOf(users: ImageUsers, uid: number): ImageUser | undefined {
  return users.users.find((u) => u.uid === uid);
}

/**
 * The groups a runtime gives a user besides those Kubernetes asks for: its primary group and
 * every group that lists it as a member (containerd's additional GIDs). None for a uid the
 * image does not know.
 */
export function imageGroups(users: ImageUsers, uid: number): number[] {
  const user = userOf(users, uid);
  if (user === undefined) return [];
  const listed = [...users.members].filter(([, names]) => names.includes(user.name)).map(([gid]) => gid);
  return [user.gid, ...listed];
}
