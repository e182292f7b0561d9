import { describe, expect, it } from 'vitest';
import { parseApiConfig, type ApiConfig } from './config.ts';

const DEFAULTS: ApiConfig = { host: '127.0.0.1', port: 8080, operatorUrl: 'http://127.0.0.1:8081', leaseName: 'kubedag-operator', bodyLimit: 1_048_576 + 65_536 };

describe('parseApiConfig', () => {
  it('uses the defaults without flags or variables, leaving optional settings out', () => {
    expect(parseApiConfig([], {})).toStrictEqual(DEFAULTS);
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
    });
  });

  it('reads every setting from flags', () => {
    const argv = ['--namespace', 'jobs', '--host', '::', '--port=0', '--operator-url', 'http://op', '--lease-namespace', 'sys', '--lease-name', 'lead', '--body-limit', '1024', '--kubeconfig', '/k'];
    expect(parseApiConfig(argv, {})).toStrictEqual({ namespace: 'jobs', host: '::', port: 0, operatorUrl: 'http://op', leaseNamespace: 'sys', leaseName: 'lead', bodyLimit: 1024, kubeconfig: '/k' });
  });

  it.each<[string, string[], NodeJS.ProcessEnv, Partial<ApiConfig>]>([
    ['a port flag over its variable', ['--port', '7000'], { KUBEDAG_API_PORT: '9090' }, { port: 7000 }],
    ['a host flag over its variable', ['--host', 'a.example'], { KUBEDAG_API_HOST: 'b.example' }, { host: 'a.example' }],
    ['a namespace flag over its variable', ['--namespace', 'flag'], { KUBEDAG_NAMESPACE: 'env' }, { namespace: 'flag' }],
    ['a kubeconfig flag over both variables', ['--kubeconfig', '/flag'], { KUBEDAG_KUBECONFIG: '/kubedag', KUBECONFIG: '/plain' }, { kubeconfig: '/flag' }],
    ['KUBEDAG_KUBECONFIG over KUBECONFIG', [], { KUBEDAG_KUBECONFIG: '/kubedag', KUBECONFIG: '/plain' }, { kubeconfig: '/kubedag' }],
    ['KUBECONFIG when nothing else names a kubeconfig', [], { KUBECONFIG: '/plain' }, { kubeconfig: '/plain' }],
    ['the default over an empty variable', [], { KUBEDAG_API_PORT: '', KUBEDAG_API_HOST: '' }, { port: 8080, host: '127.0.0.1' }],
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
  ])('rejects %s', (_, argv, env, message) => {
    expect(() => parseApiConfig(argv, env)).toThrow(message);
  });
});
