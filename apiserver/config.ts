/**
 * The API server's configuration, read once at start from flags and `KUBEDAG_*` variables
 * (flags win). Authentication and remote nodes are read by their own modules from the
 * environment (auth.ts, remote.ts).
 */
import { parseArgs } from 'node:util';

export interface ApiConfig {
  /** The namespace served; default: the kubeconfig's (or in-cluster) namespace. */
  readonly namespace?: string;
  readonly host: string;
  readonly port: number;
  /** The operator's internal endpoint, where step logs are read. */
  readonly operatorUrl: string;
  /** The operator's leader Lease (health, /services). */
  readonly leaseNamespace?: string;
  readonly leaseName: string;
  readonly bodyLimit: number;
  readonly kubeconfig?: string;
}

const DEFAULTS = { host: '127.0.0.1', port: 8080, operatorUrl: 'http://127.0.0.1:8081', leaseName: 'kubedag-operator', bodyLimit: 1_048_576 + 65_536 };

function port(value: number): number {
  if (value > 65_535) throw new Error(`port must be at most 65535, not ${String(value)}`);
  return value;
}

export function parseApiConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ApiConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      namespace: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'operator-url': { type: 'string' },
      'lease-namespace': { type: 'string' },
      'lease-name': { type: 'string' },
      'body-limit': { type: 'string' },
      kubeconfig: { type: 'string' },
    },
  });
  const pick = (flag: string | undefined, name: string): string | undefined => {
    const value = flag ?? env[`KUBEDAG_${name}`];
    return value === '' ? undefined : value;
  };
  const number = (text: string | undefined, fallback: number, name: string, min: number): number => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${String(min)}, not "${text}"`);
    return value;
  };
  const optional = <K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> => (value === undefined ? {} : ({ [key]: value } as Record<K, string>));
  return {
    ...optional('namespace', pick(values.namespace, 'NAMESPACE')),
    host: pick(values.host, 'API_HOST') ?? DEFAULTS.host,
    port: port(number(pick(values.port, 'API_PORT'), DEFAULTS.port, 'port', 0)),
    operatorUrl: pick(values['operator-url'], 'OPERATOR_URL') ?? DEFAULTS.operatorUrl,
    ...optional('leaseNamespace', pick(values['lease-namespace'], 'LEASE_NAMESPACE')),
    leaseName: pick(values['lease-name'], 'LEASE_NAME') ?? DEFAULTS.leaseName,
    bodyLimit: number(pick(values['body-limit'], 'API_BODY_LIMIT'), DEFAULTS.bodyLimit, 'body-limit', 1024),
    ...optional('kubeconfig', pick(values.kubeconfig, 'KUBECONFIG') ?? env.KUBECONFIG),
  };
}
