import { describe, expect, it } from 'vitest';
import { imageGroups, parseImageUsers, userOf } from './users.ts';

const users = parseImageUsers(
  '# comment\nroot:x:0:0:root:/root:/bin/bash\nbob:x:1001:100::/home/bob:/bin/sh\nbroken line\n',
  'users:x:100:\nadm:x:4:bob,carol\nwheel:x:10:\n',
);

describe('the image users', () => {
  it('reads users from passwd text, skipping comments and malformed lines', () => {
    expect(users.users.map((u) => [u.name, u.uid, u.gid, u.home])).toEqual([
      ['root', 0, 0, '/root'],
      ['bob', 1001, 100, '/home/bob'],
    ]);
  });

  it('finds a user by uid, and nobody for an unknown uid', () => {
    expect([userOf(users, 1001)?.name, userOf(users, 7)]).toEqual(['bob', undefined]);
  });

  it('gives a user its primary group and the groups that list it as a member', () => {
    expect(imageGroups(users, 1001)).toEqual([100, 4]);
  });

  it('gives an unknown uid no groups of the image', () => {
    expect(imageGroups(users, 4242)).toEqual([]);
  });
});
