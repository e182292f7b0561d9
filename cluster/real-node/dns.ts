/**
 * Cluster DNS for the real node: CoreDNS (built from its Go module, cluster/tools/coredns) as a
 * program inside the node's network namespace, on the node's address, serving Services' and
 * Pods' names from the API server (its kubernetes plugin). No image is needed, and nothing is
 * forwarded upstream: names outside cluster.local get no answer, as nothing outside exists.
 * The kubelet points Pods at it (clusterDNS), so `<service>.<namespace>.svc` resolves in Pods as
 * on any cluster.
 */
import { ensureGoTool } from '../go-tool.ts';
import { NODE_IP } from './config.ts';

export const CLUSTER_DOMAIN = 'cluster.local';

/** The coredns binary, built into the cache when missing (minutes the first time). */
export function ensureCoreDns(env: NodeJS.ProcessEnv = process.env, log?: (line: string) => void): Promise<string> {
  return ensureGoTool(
    {
      folder: 'coredns',
      name: 'coredns',
      title: 'CoreDNS (the real node’s cluster DNS)',
      pkg: 'github.com/coredns/coredns',
    },
    env,
    log,
  );
}

/** CoreDNS's configuration: the cluster's zones from the API server, on the node's address only. */
export function corefile(kubeconfig: string): string {
  return `${CLUSTER_DOMAIN}:53 in-addr.arpa:53 ip6.arpa:53 {
  bind ${NODE_IP}
  errors
  kubernetes ${CLUSTER_DOMAIN} in-addr.arpa ip6.arpa {
    kubeconfig ${kubeconfig}
    pods insecure
  }
  cache 5
}
`;
}
