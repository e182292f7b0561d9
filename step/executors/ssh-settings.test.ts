import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SSH_KEY_ENV } from '../../core/runner/spec.ts';
import { checkHostKey } from './ssh-known-hosts.ts';
import { decideTarget, decideWork } from './ssh-settings.ts';

const places = { cwd: '/work/step', home: '/home/runner', env: { [SSH_KEY_ENV]: 'PRIVATE KEY TEXT' } };

describe('decideTarget', () => {
  const base = { host: 'web1', user: 'deploy' };
  const cases: { name: string; config: Record<string, unknown>; want: Record<string, unknown> | string }[] = [
    {
      name: 'port defaults to 22, host keys are checked against ~/.ssh/known_hosts and the default keys are tried',
      config: base,
      want: {
        host: 'web1',
        port: 22,
        user: 'deploy',
        knownHosts: '/home/runner/.ssh/known_hosts',
        auth: {
          kind: 'defaultKeys',
          paths: ['id_rsa', 'id_ecdsa', 'id_ed25519', 'id_dsa'].map((k) => `/home/runner/.ssh/${k}`),
        },
      },
    },
    { name: 'port 0 means 22, as in Dagu', config: { ...base, port: '0' }, want: { port: 22 } },
    { name: 'a numeric port is taken', config: { ...base, port: 2222 }, want: { port: 2222 } },
    { name: 'ip wins over host, as in Dagu', config: { ...base, ip: '10.0.0.5' }, want: { host: '10.0.0.5' } },
    {
      name: 'a relative key path resolves against the working directory',
      config: { ...base, key: 'keys/id' },
      want: { auth: { kind: 'keyFile', path: '/work/step/keys/id' } },
    },
    {
      name: 'a key path under ~ resolves against the home directory',
      config: { ...base, key: '~/.ssh/deploy' },
      want: { auth: { kind: 'keyFile', path: '/home/runner/.ssh/deploy' } },
    },
    {
      name: 'a key wins over a password',
      config: { ...base, key: '/k', password: 'p' },
      want: { auth: { kind: 'keyFile', path: '/k' } },
    },
    {
      name: 'a password is used when there is no key',
      config: { ...base, password: 'p' },
      want: { auth: { kind: 'password', password: 'p' } },
    },
    {
      name: 'a Secret reference takes the key the operator passed',
      config: { ...base, key: { secretKeyRef: { name: 's', key: 'k' } } },
      want: { auth: { kind: 'keyText', text: 'PRIVATE KEY TEXT' } },
    },
    {
      name: 'strictHostKey false checks no host key',
      config: { ...base, strictHostKey: 'false' },
      want: { knownHosts: undefined },
    },
    {
      name: 'knownHostFile names the file',
      config: { ...base, knownHostFile: 'hosts' },
      want: { knownHosts: '/work/step/hosts' },
    },
    { name: 'no host is refused', config: { user: 'u' }, want: 'host is not set' },
    { name: 'no user is refused', config: { host: 'h' }, want: 'user is not set' },
    {
      name: 'a port out of range is refused',
      config: { ...base, port: '70000' },
      want: 'port "70000" is not a port number',
    },
    {
      name: 'a strictHostKey that is not a flag is refused',
      config: { ...base, strictHostKey: 'maybe' },
      want: 'strictHostKey must be true or false',
    },
    {
      name: 'a key that is a list is refused',
      config: { ...base, key: ['a'] },
      want: 'key must be a path or {secretKeyRef: {name, key}}',
    },
    { name: 'timeout defaults to 30s', config: base, want: { timeoutMs: 30_000 } },
    { name: 'timeout is a Go duration', config: { ...base, timeout: '1m30s' }, want: { timeoutMs: 90_000 } },
    { name: 'timeout 0 means the default, as in Dagu', config: { ...base, timeout: '0' }, want: { timeoutMs: 30_000 } },
    { name: 'a timeout that is no duration is refused', config: { ...base, timeout: '30' }, want: 'timeout "30"' },
    { name: 'a negative timeout is refused', config: { ...base, timeout: '-1s' }, want: 'timeout "-1s"' },
    {
      name: 'shellArgs follow shell, each quoted for the login shell',
      config: { ...base, shell: 'bash -e', shellArgs: ['-o', "it's"] },
      want: { shell: "bash -e '-o' 'it'\\''s'" },
    },
    {
      name: 'shellArgs without shell are refused',
      config: { ...base, shellArgs: ['-e'] },
      want: 'shellArgs needs shell',
    },
    {
      name: 'a bastion takes port 22, its key file before its password',
      config: { ...base, bastion: { host: 'jump', user: 'j', key: 'keys/jump', password: 'p' } },
      want: { bastion: { host: 'jump', port: 22, user: 'j', auth: { kind: 'keyFile', path: '/work/step/keys/jump' } } },
    },
    {
      name: "a bastion without key takes its password before the default keys (Dagu's order for it)",
      config: { ...base, bastion: { host: 'jump', port: '2200', user: 'j', password: 'p' } },
      want: { bastion: { host: 'jump', port: 2200, user: 'j', auth: { kind: 'password', password: 'p' } } },
    },
    {
      name: 'a bastion without user is refused',
      config: { ...base, bastion: { host: 'jump' } },
      want: 'bastion needs host and user',
    },
  ];
  it.each(cases)('$name', ({ config, want }) => {
    const got = decideTarget(config, places);
    if (typeof want === 'string') expect(got.ok ? 'accepted' : got.error).toContain(want);
    else expect(got.ok ? { knownHosts: undefined, ...got.value } : got.error).toMatchObject(want);
  });

  it('refuses a Secret reference when the operator passed no key', () => {
    const got = decideTarget(
      { host: 'h', user: 'u', key: { secretKeyRef: { name: 's', key: 'k' } } },
      { ...places, env: {} },
    );
    expect(got).toEqual({
      ok: false,
      error: `key names Secret "s" (key "k"), but the step has no ${SSH_KEY_ENV}: the operator did not pass it`,
    });
  });
});

describe('decideWork', () => {
  const cases = [
    { name: 'a command runs as the exec request', command: 'ls -l', script: undefined, want: { command: 'ls -l' } },
    {
      name: 'a script goes to /bin/sh wrapped so it is read whole first',
      command: undefined,
      script: 'echo hi',
      want: { command: '/bin/sh', stdin: '__kubedag_step() {\necho hi\n}\n__kubedag_step\n' },
    },
    {
      name: 'a script with an interpreter goes to that interpreter as written',
      command: 'python3 -',
      script: 'print(1)\n',
      want: { command: 'python3 -', stdin: 'print(1)\n' },
    },
  ];
  it.each(cases)('$name', ({ command, script, want }) => {
    expect(decideWork(command, script)).toEqual({ ok: true, value: want });
  });
  it('refuses a step with neither command nor script', () => {
    expect(decideWork(' ', undefined)).toEqual({ ok: false, error: 'the step has neither command nor script' });
  });
  it.each([
    { name: 'a command', command: 'ls -l', script: undefined, body: 'ls -l\n' },
    { name: 'a script', command: undefined, script: 'a\nb\n', body: 'a\nb\n' },
  ])('with shell, $name goes to that shell wrapped, after set -e', ({ command, script, body }) => {
    expect(decideWork(command, script, 'bash')).toEqual({
      ok: true,
      value: { command: 'bash', stdin: `__kubedag_step() {\nset -e\n${body}}\n__kubedag_step\n` },
    });
  });
  it('with shell, refuses a command beside a script', () => {
    expect(decideWork('python3 -', 'print(1)', 'bash')).toEqual({
      ok: false,
      error: 'with shell set the script runs in that shell; a command cannot also be its interpreter',
    });
  });
});

describe('checkHostKey', () => {
  const key = Buffer.from('host key one');
  const other = Buffer.from('host key two');
  const line = (hosts: string, blob: Buffer, marker = ''): string =>
    `${marker}${hosts} ssh-ed25519 ${blob.toString('base64')}\n`;
  const salt = Buffer.from('0123456789abcdef0123');
  const hashed = (name: string): string =>
    `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
  const cases = [
    {
      name: 'a listed host with the same key is accepted',
      file: line('web1,10.0.0.5', key),
      host: 'web1',
      port: 22,
      want: true,
    },
    {
      name: 'a host on another port is listed as [host]:port',
      file: line('[web1]:2222', key),
      host: 'web1',
      port: 2222,
      want: true,
    },
    {
      name: 'a host on port 22 does not match a [host]:port entry',
      file: line('[web1]:2222', key),
      host: 'web1',
      port: 22,
      want: 'web1 is not in known_hosts',
    },
    {
      name: 'a wildcard pattern matches',
      file: line('*.example.com', key),
      host: 'db.example.com',
      port: 22,
      want: true,
    },
    {
      name: 'a negated pattern excludes a host the wildcard would match',
      file: line('*.example.com,!db.example.com', key),
      host: 'db.example.com',
      port: 22,
      want: 'db.example.com is not in known_hosts',
    },
    { name: 'a hashed entry matches its host', file: line(hashed('web1'), key), host: 'web1', port: 22, want: true },
    {
      name: 'a different key for a listed host is refused as a mismatch',
      file: line('web1', other),
      host: 'web1',
      port: 22,
      want: 'differs from the one in known_hosts',
    },
    {
      name: 'a revoked key is refused even when also listed',
      file: line('web1', key) + line('web1', key, '@revoked '),
      host: 'web1',
      port: 22,
      want: 'marked @revoked',
    },
  ];
  it.each(cases)('$name', ({ file, host, port, want }) => {
    const got = checkHostKey(`# comment\n\n${file}`, host, port, key);
    if (want === true) expect(got).toEqual({ ok: true });
    else expect(got.ok ? 'accepted' : got.reason).toContain(want);
  });
});
