import { describe, expect, it } from 'vitest';
import { dockerConfigJson, type RegistryAuths } from './registry-auths.ts';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('registryAuths as a docker config', () => {
  it.each<{ name: string; auths: RegistryAuths; vars?: Record<string, string>; want: unknown }>([
    {
      name: 'a username and password become an auth token',
      auths: { 'ghcr.io': { username: 'me', password: 'pw' } },
      want: { auths: { 'ghcr.io': { username: 'me', password: 'pw', auth: b64('me:pw') } } },
    },
    {
      name: 'an auth token is kept as it is',
      auths: { 'docker.io': { auth: 'dG9rZW4=' } },
      want: { auths: { 'docker.io': { auth: 'dG9rZW4=' } } },
    },
    {
      name: 'variables in values are expanded from the run',
      auths: { 'ghcr.io': { username: '${USER_NAME}', password: '${PW}' } },
      vars: { USER_NAME: 'bot', PW: 's3cret' },
      want: { auths: { 'ghcr.io': { username: 'bot', password: 's3cret', auth: b64('bot:s3cret') } } },
    },
    {
      name: 'a docker config JSON text from a variable is read with its auths key',
      auths: '${DOCKER_AUTH_CONFIG}',
      vars: { DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { 'quay.io': { auth: 'eA==' } } }) },
      want: { auths: { 'quay.io': { auth: 'eA==' } } },
    },
    {
      name: 'a host whose value is a JSON text is read as its credentials',
      auths: { 'ghcr.io': '{"username": "a", "password": "b"}' },
      want: { auths: { 'ghcr.io': { username: 'a', password: 'b', auth: b64('a:b') } } },
    },
  ])('$name', ({ auths, vars, want }) => {
    const result = dockerConfigJson(auths, vars ?? {});
    expect(result.ok && (JSON.parse(result.json) as unknown)).toEqual(want);
  });

  it.each<{ name: string; auths: RegistryAuths; error: string }>([
    {
      name: 'a text that is not JSON',
      auths: 'not json',
      error: 'registryAuths: the text is not a JSON object of registries',
    },
    {
      name: 'a host without a password',
      auths: { 'ghcr.io': { username: 'me' } },
      error: 'registryAuths.ghcr.io: needs username and password, or auth',
    },
    {
      name: 'a host with a list',
      auths: { 'ghcr.io': ['x'] },
      error: 'registryAuths.ghcr.io: expected {username, password} or {auth}',
    },
  ])('refuses $name', ({ auths, error }) => {
    expect(dockerConfigJson(auths, {})).toEqual({ ok: false, error });
  });
});
