import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApiConfig, parseAuthConfig, parseRemoteNodes, type ApiConfig, type AuthConfig } from './config.ts';

const DEFAULTS: ApiConfig = {
  host: '127.0.0.1',
  port: 8080,
  operatorUrl: 'http://127.0.0.1:8081',
  leaseName: 'kubedag-operator',
  bodyLimit: 1_048_576 + 65_536,
  log: { level: 'info', format: 'json' },
  auth: {},
  remoteNodes: [],
  uiDir: join(import.meta.dirname, '../dist/ui'),
  audit: { sink: 'stdout' },
  trustProxy: false,
  podPolicy: 'baseline',
};
const NO_FILES = (path: string): string => {
  throw new Error(`ENOENT: no such file, open '${path}'`);
};

describe('parseApiConfig', () => {
  it('uses the defaults without flags or variables, leaving optional settings out', () => {
    expect(parseApiConfig([], {})).toStrictEqual(DEFAULTS);
  });

  it("reads the operator's history settings: postgres with its URL variable, sqlite with its path, and refuses a stray one", () => {
    const url = 'postgres://kubedag:pw@db:5432/kubedag';
    expect(parseApiConfig(['--history-store=postgres'], { KUBEDAG_HISTORY_POSTGRES_URL: url }).history).toEqual({
      kind: 'postgres',
      url,
    });
    expect(parseApiConfig(['--history-store=sqlite', '--history-sqlite-path=/data/h.db'], {}).history).toEqual({
      kind: 'sqlite',
      path: '/data/h.db',
    });
    expect(() => parseApiConfig([], { KUBEDAG_HISTORY_POSTGRES_URL: url })).toThrow(
      /applies to the postgres history store only/,
    );
  });

  it('reads every setting from KUBEDAG_* variables', () => {
    const env = {
      KUBEDAG_NAMESPACE: 'jobs',
      KUBEDAG_API_HOST: '0.0.0.0',
      KUBEDAG_API_PORT: '9090',
      KUBEDAG_OPERATOR_URL: 'http://operator:8081',
      KUBEDAG_LEASE_NAMESPACE: 'kubedag-system',
      KUBEDAG_LEASE_NAME: 'leader',
      KUBEDAG_API_BODY_LIMIT: '2048',
      KUBEDAG_KUBECONFIG: '/etc/kube/config',
      KUBEDAG_LOG_LEVEL: 'debug',
      KUBEDAG_LOG_FORMAT: 'pretty',
      KUBEDAG_AUTH_MODE: 'bearer',
      KUBEDAG_AUTH_TOKEN: 'secret',
      KUBEDAG_REMOTE_NODES: '[{"name":"eu","baseUrl":"https://eu.example/"}]',
      KUBEDAG_UI_DIR: '/srv/ui',
      KUBEDAG_AUDIT_LOG: 'file:/var/log/kubedag/audit.log',
      KUBEDAG_TRUST_PROXY: '10.0.0.0/8, 192.168.1.1',
      KUBEDAG_POD_POLICY: 'restricted',
    };
    expect(parseApiConfig([], env)).toStrictEqual({
      namespace: 'jobs',
      host: '0.0.0.0',
      port: 9090,
      operatorUrl: 'http://operator:8081',
      leaseNamespace: 'kubedag-system',
      leaseName: 'leader',
      bodyLimit: 2048,
      kubeconfig: '/etc/kube/config',
      log: { level: 'debug', format: 'pretty' },
      auth: { tokens: [{ token: 'secret' }] },
      remoteNodes: [{ name: 'eu', baseUrl: 'https://eu.example' }],
      uiDir: '/srv/ui',
      audit: { sink: 'file', path: '/var/log/kubedag/audit.log' },
      trustProxy: ['10.0.0.0/8', '192.168.1.1'],
      podPolicy: 'restricted',
    });
  });

  it('reads every setting from flags', () => {
    const argv = [
      '--namespace',
      'jobs',
      '--host',
      '::',
      '--port=0',
      '--operator-url',
      'http://op',
      '--lease-namespace',
      'sys',
      '--lease-name',
      'lead',
      '--body-limit',
      '1024',
      '--kubeconfig',
      '/k',
      '--log-level',
      'warn',
      '--log-format=pretty',
      '--ui-dir',
      '/u',
      '--audit-log=off',
      '--trust-proxy=2',
      '--pod-policy',
      'privileged',
    ];
    expect(parseApiConfig(argv, {})).toStrictEqual({
      namespace: 'jobs',
      host: '::',
      port: 0,
      operatorUrl: 'http://op',
      leaseNamespace: 'sys',
      leaseName: 'lead',
      bodyLimit: 1024,
      kubeconfig: '/k',
      log: { level: 'warn', format: 'pretty' },
      auth: {},
      remoteNodes: [],
      uiDir: '/u',
      audit: { sink: 'off' },
      trustProxy: 2,
      podPolicy: 'privileged',
    });
  });

  it.each<[string, string[], NodeJS.ProcessEnv, Partial<ApiConfig>]>([
    ['a port flag over its variable', ['--port', '7000'], { KUBEDAG_API_PORT: '9090' }, { port: 7000 }],
    [
      'a host flag over its variable',
      ['--host', 'a.example'],
      { KUBEDAG_API_HOST: 'b.example' },
      { host: 'a.example' },
    ],
    [
      'a namespace flag over its variable',
      ['--namespace', 'flag'],
      { KUBEDAG_NAMESPACE: 'env' },
      { namespace: 'flag' },
    ],
    [
      'a kubeconfig flag over both variables',
      ['--kubeconfig', '/flag'],
      { KUBEDAG_KUBECONFIG: '/kubedag', KUBECONFIG: '/plain' },
      { kubeconfig: '/flag' },
    ],
    [
      'KUBEDAG_KUBECONFIG over KUBECONFIG',
      [],
      { KUBEDAG_KUBECONFIG: '/kubedag', KUBECONFIG: '/plain' },
      { kubeconfig: '/kubedag' },
    ],
    ['KUBECONFIG when nothing else names a kubeconfig', [], { KUBECONFIG: '/plain' }, { kubeconfig: '/plain' }],
    [
      'the default over an empty variable',
      [],
      { KUBEDAG_API_PORT: '', KUBEDAG_API_HOST: '' },
      { port: 8080, host: '127.0.0.1' },
    ],
    [
      'a log level flag over its variable',
      ['--log-level', 'error'],
      { KUBEDAG_LOG_LEVEL: 'debug' },
      { log: { level: 'error', format: 'json' } },
    ],
    [
      'the log defaults over empty variables',
      [],
      { KUBEDAG_LOG_LEVEL: '', KUBEDAG_LOG_FORMAT: '' },
      { log: { level: 'info', format: 'json' } },
    ],
  ])('prefers %s', (_, argv, env, expected) => {
    expect(parseApiConfig(argv, env)).toMatchObject(expected);
  });

  it('leaves the namespace out when only an empty one is given', () => {
    expect(parseApiConfig(['--namespace='], { KUBEDAG_NAMESPACE: '' })).not.toHaveProperty('namespace');
  });

  it.each<[string, string[], NodeJS.ProcessEnv, RegExp]>([
    ['a port that is no number', ['--port', 'http'], {}, /^port must be an integer >= 0, not "http"$/],
    ['a negative port', ['--port=-1'], {}, /^port must be an integer >= 0, not "-1"$/],
    ['a port over 65535', ['--port=70000'], {}, /^port must be at most 65535, not 70000$/],
    ['a negative port from the environment', [], { KUBEDAG_API_PORT: '-80' }, /^port must be an integer >= 0/],
    ['a fractional port', [], { KUBEDAG_API_PORT: '80.5' }, /^port must be an integer >= 0, not "80.5"$/],
    ['a body limit below 1024', ['--body-limit', '1023'], {}, /^body-limit must be an integer >= 1024, not "1023"$/],
    ['a body limit that is no number', [], { KUBEDAG_API_BODY_LIMIT: '1MB' }, /^body-limit must be an integer >= 1024/],
    ['an unknown flag', ['--bogus'], {}, /bogus/],
    ['a flag without its value', ['--port'], {}, /port/],
    [
      'an unknown log level',
      ['--log-level', 'loud'],
      {},
      /^log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"$/,
    ],
    [
      'an unknown log format from the environment',
      [],
      { KUBEDAG_LOG_FORMAT: 'xml' },
      /^log-format must be one of json, pretty, not "xml"$/,
    ],
    [
      'inconsistent authentication',
      [],
      { KUBEDAG_AUTH_TOKEN: 'abc' },
      /^KUBEDAG_AUTH_TOKEN is set but KUBEDAG_AUTH_MODE does not include bearer$/,
    ],
    [
      'a bad remote node',
      [],
      { KUBEDAG_REMOTE_NODES: '[{"name":"local","baseUrl":"http://a"}]' },
      /^KUBEDAG_REMOTE_NODES: \[0\]\.name: "local" is reserved for this server$/,
    ],
  ])('rejects %s', (_, argv, env, message) => {
    expect(() => parseApiConfig(argv, env, NO_FILES)).toThrow(message);
  });
});

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

describe('parseRemoteNodes', () => {
  const json = '[{"name":"a","baseUrl":"http://a"}]';
  const files: Record<string, string> = {
    '/etc/kubedag/nodes.json': json,
    '/etc/kubedag/bad.json': '[{"name":"local","baseUrl":"http://a"}]',
  };
  const readFile = (path: string): string => {
    const text = files[path];
    if (text === undefined) throw new Error(`ENOENT: no such file, open '${path}'`);
    return text;
  };
  const inline = (text: string): Record<string, string> => ({ KUBEDAG_REMOTE_NODES: text });

  it('reads nodes with their optional auth and timeout', () => {
    const text = JSON.stringify([
      { name: 'a', baseUrl: 'http://a:8080/' },
      {
        name: 'b',
        baseUrl: 'https://b.example/dagu',
        auth: { basic: { username: 'u', password: '' } },
        timeoutMs: 5000,
      },
      { name: 'c', baseUrl: 'http://c', auth: { token: 't' } },
    ]);
    expect(parseRemoteNodes(inline(text), readFile)).toEqual([
      { name: 'a', baseUrl: 'http://a:8080' },
      {
        name: 'b',
        baseUrl: 'https://b.example/dagu',
        auth: { basic: { username: 'u', password: '' } },
        timeoutMs: 5000,
      },
      { name: 'c', baseUrl: 'http://c', auth: { token: 't' } },
    ]);
  });

  it.each([
    { name: 'no variable means no nodes', env: {}, nodes: [] },
    {
      name: 'empty variables mean no nodes',
      env: { KUBEDAG_REMOTE_NODES: '', KUBEDAG_REMOTE_NODES_FILE: '' },
      nodes: [],
    },
    { name: 'an empty list means no nodes', env: inline('[]'), nodes: [] },
    { name: 'KUBEDAG_REMOTE_NODES holds the JSON', env: inline(json), nodes: [{ name: 'a', baseUrl: 'http://a' }] },
    {
      name: 'KUBEDAG_REMOTE_NODES_FILE names a file holding it',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/nodes.json' },
      nodes: [{ name: 'a', baseUrl: 'http://a' }],
    },
  ])('$name', ({ env, nodes }) => {
    expect(parseRemoteNodes(env, readFile)).toEqual(nodes);
  });

  it.each([
    { name: 'text that is not JSON', text: '[{', error: /^KUBEDAG_REMOTE_NODES: not JSON/ },
    { name: 'an object instead of a list', text: '{"name":"a"}', error: /^KUBEDAG_REMOTE_NODES must be an array$/ },
    { name: 'a node that is not an object', text: '["a"]', error: /^KUBEDAG_REMOTE_NODES: \[0\] must be an object$/ },
    {
      name: 'a missing name',
      text: '[{"baseUrl":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\]\.name is required$/,
    },
    {
      name: 'an empty name',
      text: '[{"name":"","baseUrl":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\]\.name: must not be blank$/,
    },
    {
      name: 'the reserved name local',
      text: '[{"name":"local","baseUrl":"http://a"}]',
      error: /\[0\]\.name: "local" is reserved for this server$/,
    },
    { name: 'a missing baseUrl', text: '[{"name":"a"}]', error: /^KUBEDAG_REMOTE_NODES: \[0\]\.baseUrl is required$/ },
    {
      name: 'a baseUrl that is not a URL',
      text: '[{"name":"a","baseUrl":"a:b:c/"}]',
      error: /baseUrl: (must be http or https|.* is not a URL)/,
    },
    {
      name: 'a relative baseUrl',
      text: '[{"name":"a","baseUrl":"/api"}]',
      error: /\[0\]\.baseUrl: "\/api" is not a URL$/,
    },
    {
      name: 'a baseUrl that is not http(s)',
      text: '[{"name":"a","baseUrl":"ftp://a"}]',
      error: /baseUrl: must be http or https, not ftp$/,
    },
    {
      name: 'a baseUrl with a query',
      text: '[{"name":"a","baseUrl":"http://a?x=1"}]',
      error: /baseUrl: must not have a query/,
    },
    {
      name: 'credentials in the baseUrl',
      text: '[{"name":"a","baseUrl":"http://u:p@a"}]',
      error: /baseUrl: put credentials in auth/,
    },
    {
      name: 'duplicate names',
      text: '[{"name":"a","baseUrl":"http://a"},{"name":"a","baseUrl":"http://b"}]',
      error: /^KUBEDAG_REMOTE_NODES: duplicate name "a"$/,
    },
    {
      name: 'a misspelt field',
      text: '[{"name":"a","baseURL":"http://a"}]',
      error: /^KUBEDAG_REMOTE_NODES: \[0\] has an unknown field "baseURL"$/,
    },
    {
      name: 'both basic and token',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"token":"t","basic":{"username":"u","password":"p"}}}]',
      error: /\[0\]\.auth: give basic or token, not both$/,
    },
    {
      name: 'an empty token',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"token":""}}]',
      error: /\[0\]\.auth\.token: must not be blank$/,
    },
    {
      name: 'basic without a password',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"basic":{"username":"u"}}}]',
      error: /\[0\]\.auth\.basic\.password is required$/,
    },
    {
      name: 'a username with a colon',
      text: '[{"name":"a","baseUrl":"http://a","auth":{"basic":{"username":"u:v","password":"p"}}}]',
      error: /\[0\]\.auth\.basic\.username: must not contain ":"$/,
    },
    {
      name: 'a timeout that is not a positive integer',
      text: '[{"name":"a","baseUrl":"http://a","timeoutMs":0}]',
      error: /\[0\]\.timeoutMs must be >= 1$/,
    },
    {
      name: 'a timeout that is not a number',
      text: '[{"name":"a","baseUrl":"http://a","timeoutMs":"5s"}]',
      error: /\[0\]\.timeoutMs must be an integer$/,
    },
  ])('rejects $name', ({ text, error }) => {
    expect(() => parseRemoteNodes(inline(text), readFile)).toThrow(error);
  });

  it.each([
    {
      name: 'both variables',
      env: { KUBEDAG_REMOTE_NODES: json, KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/nodes.json' },
      error: /not both/,
    },
    {
      name: 'a file that cannot be read',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/nope.json' },
      error: /^KUBEDAG_REMOTE_NODES_FILE: cannot read \/nope\.json: ENOENT/,
    },
    {
      name: 'a file with a bad node, naming the file',
      env: { KUBEDAG_REMOTE_NODES_FILE: '/etc/kubedag/bad.json' },
      error: /^KUBEDAG_REMOTE_NODES_FILE \/etc\/kubedag\/bad\.json: \[0\]\.name: "local" is reserved/,
    },
  ])('rejects $name', ({ env, error }) => {
    expect(() => parseRemoteNodes(env, readFile)).toThrow(error);
  });
});
