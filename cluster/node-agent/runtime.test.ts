import { describe, expect, it } from 'vitest';
import { prologue } from './runtime.ts';

describe('prologue, the mount-namespace setup before a container command', () => {
  it('binds each volume, remounts read-only ones, creates file targets, then execs the command', () => {
    expect(
      prologue(
        [
          { hostPath: '/state/vol/data', mountPath: '/data', readOnly: false },
          { hostPath: '/state/vol/creds dir', mountPath: '/etc/creds', readOnly: true },
          { hostPath: '/state/main.termination-log', mountPath: '/dev/termination-log', readOnly: false, file: true },
        ],
        '/work dir',
      ).split('\n'),
    ).toEqual([
      'set -e',
      'mkdir -p /data',
      'mount --bind /state/vol/data /data',
      'mkdir -p /etc/creds',
      "mount --bind '/state/vol/creds dir' /etc/creds",
      'mount -o remount,bind,ro /etc/creds',
      'mkdir -p "$(dirname /dev/termination-log)"',
      '[ -e /dev/termination-log ] || : > /dev/termination-log',
      'mount --bind /state/main.termination-log /dev/termination-log',
      "mkdir -p '/work dir'",
      "cd '/work dir'",
      'exec "$@"',
    ]);
  });
});
