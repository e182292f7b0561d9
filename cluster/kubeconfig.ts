import { writeFile } from 'node:fs/promises';
import { dump } from 'js-yaml';
import type { CertificatePaths } from './pki.ts';

/** A kubeconfig with one cluster, one client-certificate user and one current context. */
export async function writeKubeconfig(
  path: string,
  server: string,
  ca: string,
  client: CertificatePaths,
  user: string,
): Promise<void> {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kubedag-local', cluster: { server, 'certificate-authority': ca } }],
    users: [{ name: user, user: { 'client-certificate': client.cert, 'client-key': client.key } }],
    contexts: [{ name: 'kubedag-local', context: { cluster: 'kubedag-local', user } }],
    'current-context': 'kubedag-local',
  };
  await writeFile(path, dump(config), { mode: 0o600 });
}
