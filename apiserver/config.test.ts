import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseApiConfig, type ApiConfig } from './config.ts';

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
