import { describe, expect, it } from 'vitest';
import { parseAuthConfig, type AuthConfig } from './config-auth.ts';

describe('parseAuthConfig', () => {
  const files: Record<string, string> = {
    '/secrets/users': '# user:password\nalice:s3cret\r\n\nbob:pa:ss\n',
    '/secrets/tokens': 'tok-all\n  tok-read read  \ntok-ops run,write\n',
    '/secrets/badline': 'alice\n',
    '/secrets/badperm': 'tok admin\n',
    '/secrets/empty': '# nothing yet\n',
    '/secrets/nopassword': 'alice:s3cret\nbob:\n',
  };
  const readFile = (path: string): string => {
    const text = files[path];
    if (text === undefined) throw new Error('ENOENT');
    return text;
  };

  const loads: { name: string; env: Record<string, string>; expected: AuthConfig }[] = [
    { name: 'no variables mean mode none', env: {}, expected: {} },
    { name: 'mode none is explicit too', env: { KUBEDAG_AUTH_MODE: 'none' }, expected: {} },
    {
      name: 'basic reads user:password lines, skipping comments and blank lines',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_FILE: '/secrets/users' },
      expected: {
        basic: [
          { username: 'alice', password: 's3cret' },
          { username: 'bob', password: 'pa:ss' },
        ],
      },
    },
    {
      name: 'basic takes a user from two variables',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_USERNAME: 'admin', KUBEDAG_AUTH_BASIC_PASSWORD: 'pw' },
      expected: { basic: [{ username: 'admin', password: 'pw' }] },
    },
    {
      name: 'basic users may be limited',
      env: {
        KUBEDAG_AUTH_MODE: 'basic',
        KUBEDAG_AUTH_BASIC_USERNAME: 'a',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'b',
        KUBEDAG_AUTH_BASIC_PERMISSIONS: 'read,run',
      },
      expected: { basic: [{ username: 'a', password: 'b' }], basicPermissions: ['read', 'run'] },
    },
    {
      name: 'bearer reads tokens with optional permissions',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKENS_FILE: '/secrets/tokens' },
      expected: {
        tokens: [
          { token: 'tok-all' },
          { token: 'tok-read', permissions: ['read'] },
          { token: 'tok-ops', permissions: ['run', 'write'] },
        ],
      },
    },
    {
      name: 'bearer takes one token from a variable, trimmed',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKEN: 'abc\n' },
      expected: { tokens: [{ token: 'abc' }] },
    },
    {
      name: 'modes combine, with spaces around commas',
      env: {
        KUBEDAG_AUTH_MODE: 'basic, bearer',
        KUBEDAG_AUTH_BASIC_USERNAME: 'a',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'b',
        KUBEDAG_AUTH_TOKEN: 't',
      },
      expected: { basic: [{ username: 'a', password: 'b' }], tokens: [{ token: 't' }] },
    },
    { name: 'kubernetes asks the cluster', env: { KUBEDAG_AUTH_MODE: 'kubernetes' }, expected: { kubernetes: true } },
    { name: 'modes are a set', env: { KUBEDAG_AUTH_MODE: 'kubernetes,kubernetes,' }, expected: { kubernetes: true } },
    {
      name: 'permissions are a set',
      env: {
        KUBEDAG_AUTH_MODE: 'basic',
        KUBEDAG_AUTH_BASIC_USERNAME: 'a',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'b',
        KUBEDAG_AUTH_BASIC_PERMISSIONS: 'run, run,read',
      },
      expected: { basic: [{ username: 'a', password: 'b' }], basicPermissions: ['run', 'read'] },
    },
  ];
  it.each(loads)('$name', ({ env, expected }) => {
    expect(parseAuthConfig(env, readFile)).toStrictEqual(expected);
  });

  const failures: { name: string; env: Record<string, string>; error: RegExp }[] = [
    {
      name: 'an unknown mode',
      env: { KUBEDAG_AUTH_MODE: 'basic,oauth' },
      error: /^KUBEDAG_AUTH_MODE: "oauth" is not one of none, basic, bearer, kubernetes, oidc$/,
    },
    {
      name: 'none combined with another mode',
      env: { KUBEDAG_AUTH_MODE: 'none,basic' },
      error: /"none" cannot be combined/,
    },
    {
      name: 'basic without users',
      env: { KUBEDAG_AUTH_MODE: 'basic' },
      error: /includes basic but no user is configured/,
    },
    {
      name: 'basic with a file of comments only',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_FILE: '/secrets/empty' },
      error: /no user is configured/,
    },
    {
      name: 'bearer without tokens',
      env: { KUBEDAG_AUTH_MODE: 'bearer' },
      error: /includes bearer but no token is configured/,
    },
    {
      name: 'credentials without their mode',
      env: { KUBEDAG_AUTH_TOKEN: 'abc' },
      error: /KUBEDAG_AUTH_TOKEN is set but KUBEDAG_AUTH_MODE does not include bearer/,
    },
    {
      name: 'a username without a password',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_USERNAME: 'a' },
      error: /must be set together/,
    },
    {
      name: 'a user line without a colon',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_FILE: '/secrets/badline' },
      error: /KUBEDAG_AUTH_BASIC_FILE line 1: expected user:password/,
    },
    {
      name: 'a user defined twice',
      env: {
        KUBEDAG_AUTH_MODE: 'basic',
        KUBEDAG_AUTH_BASIC_FILE: '/secrets/users',
        KUBEDAG_AUTH_BASIC_USERNAME: 'alice',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'x',
      },
      error: /"alice" is defined twice/,
    },
    {
      name: 'an unknown permission on a token',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKENS_FILE: '/secrets/badperm' },
      error: /^KUBEDAG_AUTH_TOKENS_FILE line 1: "admin" is not one of read, run, write, delete$/,
    },
    {
      name: 'public granted to basic users',
      env: {
        KUBEDAG_AUTH_MODE: 'basic',
        KUBEDAG_AUTH_BASIC_USERNAME: 'a',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'b',
        KUBEDAG_AUTH_BASIC_PERMISSIONS: 'public',
      },
      error: /^KUBEDAG_AUTH_BASIC_PERMISSIONS: "public" is not one of read, run, write, delete$/,
    },
    {
      name: 'an empty permission list',
      env: {
        KUBEDAG_AUTH_MODE: 'basic',
        KUBEDAG_AUTH_BASIC_USERNAME: 'a',
        KUBEDAG_AUTH_BASIC_PASSWORD: 'b',
        KUBEDAG_AUTH_BASIC_PERMISSIONS: ' , ',
      },
      error: /^KUBEDAG_AUTH_BASIC_PERMISSIONS: empty permission list$/,
    },
    {
      name: 'a user line with an empty password',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_FILE: '/secrets/nopassword' },
      error: /^KUBEDAG_AUTH_BASIC_FILE line 2: password must not be empty$/,
    },
    {
      name: 'a username with a colon',
      env: { KUBEDAG_AUTH_MODE: 'basic', KUBEDAG_AUTH_BASIC_USERNAME: 'a:b', KUBEDAG_AUTH_BASIC_PASSWORD: 'c' },
      error: /^KUBEDAG_AUTH_BASIC_USERNAME: must not contain ":"$/,
    },
    {
      name: 'a blank token',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKEN: ' \n' },
      error: /^KUBEDAG_AUTH_TOKEN: must not be blank$/,
    },
    {
      name: 'a token defined twice',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKENS_FILE: '/secrets/tokens', KUBEDAG_AUTH_TOKEN: 'tok-read' },
      error: /^a Bearer token is defined twice$/,
    },
    {
      name: 'a file that cannot be read',
      env: { KUBEDAG_AUTH_MODE: 'bearer', KUBEDAG_AUTH_TOKENS_FILE: '/secrets/missing' },
      error: /KUBEDAG_AUTH_TOKENS_FILE: cannot read \/secrets\/missing: ENOENT/,
    },
  ];
  it.each(failures)('refuses $name', ({ env, error }) => {
    expect(() => parseAuthConfig(env, readFile)).toThrow(error);
  });
});
