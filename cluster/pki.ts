/**
 * Certificates and keys of the local control plane: one CA, serving certificates for
 * kube-apiserver and the node agents, client certificates per component, and the service
 * account signing key. Generated once per cluster directory; nothing leaves loopback.
 */
import { generateKeyPairSync, webcrypto } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// @peculiar/x509 2 resolves its parts through tsyringe, which needs a Reflect polyfill loaded first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const TEN_YEARS_MS = 10 * 365 * 24 * 3600 * 1000;

export interface CertificatePaths {
  readonly cert: string;
  readonly key: string;
}

export interface Pki {
  readonly dir: string;
  readonly ca: CertificatePaths;
  readonly apiserver: CertificatePaths;
  /** kube-apiserver's identity towards node agents (log endpoint). */
  readonly apiserverKubeletClient: CertificatePaths;
  readonly admin: CertificatePaths;
  readonly controllerManager: CertificatePaths;
  readonly scheduler: CertificatePaths;
  /** Serving certificate of every node agent's log endpoint (all listen on 127.0.0.1). */
  readonly nodeAgent: CertificatePaths;
  readonly serviceAccount: { readonly publicKey: string; readonly privateKey: string };
}

interface Issued {
  readonly certPem: string;
  readonly keyPem: string;
  readonly keys: CryptoKeyPair;
  readonly cert: x509.X509Certificate;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd();
  return `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\n`;
}

async function createCa(): Promise<Issued> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=kubedag-local-ca',
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + TEN_YEARS_MS),
    signingAlgorithm: ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys), keys, cert };
}

export interface Leaf {
  readonly subject: string;
  readonly server?: { readonly dns: readonly string[]; readonly ips: readonly string[] };
  readonly client?: boolean;
}

async function issue(ca: Issued, leaf: Leaf): Promise<Issued> {
  const keys = await newKeys();
  const usages = [
    ...(leaf.server ? [x509.ExtendedKeyUsage.serverAuth] : []),
    ...(leaf.client === true ? [x509.ExtendedKeyUsage.clientAuth] : []),
  ];
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension(usages),
    await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
  ];
  if (leaf.server) {
    const names = [
      ...leaf.server.dns.map((value) => ({ type: 'dns' as const, value })),
      ...leaf.server.ips.map((value) => ({ type: 'ip' as const, value })),
    ];
    extensions.push(new x509.SubjectAlternativeNameExtension(names));
  }
  const cert = await x509.X509CertificateGenerator.create({
    subject: leaf.subject,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - 3600_000),
    notAfter: new Date(Date.now() + TEN_YEARS_MS),
    signingAlgorithm: ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: await keyPem(keys), keys, cert };
}

const LOOPBACK = { dns: ['localhost'], ips: ['127.0.0.1'] };

/** Writes a complete PKI into `dir`, or returns the one already there. */
export async function ensurePki(dir: string): Promise<Pki> {
  const pki = pkiPaths(dir);
  const present = await readFile(pki.serviceAccount.privateKey, 'utf8').then(
    () => true,
    () => false,
  );
  if (present) return pki;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const ca = await createCa();
  const leaves: [CertificatePaths, Leaf][] = [
    [
      pki.apiserver,
      {
        subject: 'CN=kube-apiserver',
        server: {
          dns: [
            ...LOOPBACK.dns,
            'kubernetes',
            'kubernetes.default',
            'kubernetes.default.svc',
            'kubernetes.default.svc.cluster.local',
          ],
          ips: [...LOOPBACK.ips, '10.96.0.1'],
        },
      },
    ],
    [pki.apiserverKubeletClient, { subject: 'CN=kube-apiserver-kubelet-client, O=system:masters', client: true }],
    [pki.admin, { subject: 'CN=kubedag-admin, O=system:masters', client: true }],
    [pki.controllerManager, { subject: 'CN=system:kube-controller-manager', client: true }],
    [pki.scheduler, { subject: 'CN=system:kube-scheduler', client: true }],
    [pki.nodeAgent, { subject: 'CN=kubedag-node-agent', server: LOOPBACK }],
  ];
  await writeFile(pki.ca.cert, ca.certPem);
  await writeFile(pki.ca.key, ca.keyPem, { mode: 0o600 });
  for (const [paths, leaf] of leaves) {
    const issued = await issue(ca, leaf);
    await writeFile(paths.cert, issued.certPem);
    await writeFile(paths.key, issued.keyPem, { mode: 0o600 });
  }
  // Service account tokens are RS256 by default; written last, it marks the PKI complete.
  const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await writeFile(pki.serviceAccount.publicKey, sa.publicKey.export({ type: 'spki', format: 'pem' }));
  await writeFile(pki.serviceAccount.privateKey, sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), {
    mode: 0o600,
  });
  return pki;
}

/**
 * Issues one more certificate from the CA of a PKI that ensurePki wrote (the real node's kubelet
 * and kube-proxy, cluster/real-node), into `paths`, unless a certificate is there already.
 */
export async function ensureLeaf(pki: Pki, leaf: Leaf, paths: CertificatePaths): Promise<CertificatePaths> {
  const present = await readFile(paths.key).then(
    () => true,
    () => false,
  );
  if (present) return paths;
  const cert = new x509.X509Certificate(await readFile(pki.ca.cert, 'utf8'));
  const der = Buffer.from(
    (await readFile(pki.ca.key, 'utf8')).replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''),
    'base64',
  );
  const privateKey = await webcrypto.subtle.importKey('pkcs8', der, ALGORITHM, true, ['sign']);
  const publicKey = await webcrypto.subtle.importKey('spki', cert.publicKey.rawData, ALGORITHM, true, ['verify']);
  const issued = await issue({ certPem: '', keyPem: '', keys: { privateKey, publicKey }, cert }, leaf);
  await writeFile(paths.cert, issued.certPem);
  await writeFile(paths.key, issued.keyPem, { mode: 0o600 });
  return paths;
}

export function pkiPaths(dir: string): Pki {
  const pair = (name: string): CertificatePaths => ({ cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) });
  return {
    dir,
    ca: pair('ca'),
    apiserver: pair('apiserver'),
    apiserverKubeletClient: pair('apiserver-kubelet-client'),
    admin: pair('admin'),
    controllerManager: pair('controller-manager'),
    scheduler: pair('scheduler'),
    nodeAgent: pair('node-agent'),
    serviceAccount: { publicKey: join(dir, 'sa.pub'), privateKey: join(dir, 'sa.key') },
  };
}
