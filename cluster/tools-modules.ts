/**
 * Keeps the tools modules under tools/ in step with versions.json. k8s.io/kubernetes points
 * its staging modules (k8s.io/api, k8s.io/client-go, ...) at local folders; a module that
 * depends on it replaces each with the published version. That replace block is derived from
 * the go.mod of the pinned k8s.io/kubernetes, never written by hand.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readVersions, type Versions } from './binaries.ts';

const run = promisify(execFile);
const TOOLS = join(import.meta.dirname, 'tools');
const GO_ENV = { ...process.env, GOTOOLCHAIN: 'local' };

/** The module each tools folder requires, and the version key that pins it. */
const MODULES: readonly { folder: string; module: string; version: keyof Versions }[] = [
  { folder: 'kubernetes', module: 'k8s.io/kubernetes', version: 'kubernetes' },
  { folder: 'etcd', module: 'go.etcd.io/etcd/server/v3', version: 'etcd' },
  { folder: 'helm', module: 'helm.sh/helm/v4', version: 'helm' },
  // The real node's kubelet and kube-proxy, and its container runtime (cluster/real-node/binaries.ts).
  { folder: 'kubernetes-node', module: 'k8s.io/kubernetes', version: 'kubernetes' },
  { folder: 'containerd', module: 'github.com/containerd/containerd/v2', version: 'containerd' },
];

/** `replace (...)` for k8s.io/kubernetes@version: every `k8s.io/x => ./staging/src/k8s.io/x` as `k8s.io/x vA.B.C`. */
export async function kubernetesReplaceBlock(version: string): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', `k8s.io/kubernetes@${version}`], {
    env: GO_ENV,
    maxBuffer: 1 << 20,
  });
  const goMod = await readFile((JSON.parse(stdout) as { GoMod: string }).GoMod, 'utf8');
  const staging = `v0.${version.replace(/^v1\./, '')}`;
  const modules = [...goMod.matchAll(/^\s*(k8s\.io\/[\w.-]+) => \.\/staging\/src\/\1\s*$/gm)].map((m) => m[1] ?? '');
  if (modules.length === 0) throw new Error(`no staging replaces found in the go.mod of k8s.io/kubernetes@${version}`);
  return `replace (\n${modules.map((m) => `\t${m} => ${m} ${staging}`).join('\n')}\n)`;
}

function requiredVersion(goMod: string, module: string): string | undefined {
  const escaped = module.replaceAll('.', '\\.').replaceAll('/', '\\/');
  return new RegExp(`^\\s*(?:require\\s+)?${escaped} (v[^\\s]+)`, 'm').exec(goMod)?.[1];
}

function replaceBlockOf(goMod: string): string | undefined {
  return /^replace \([\s\S]*?^\)/m.exec(goMod)?.[0];
}

/** Problems that make the tools modules disagree with versions.json; empty when current. */
export async function checkToolsModules(): Promise<string[]> {
  const versions = await readVersions();
  const problems: string[] = [];
  for (const entry of MODULES) {
    const goMod = await readFile(join(TOOLS, entry.folder, 'go.mod'), 'utf8');
    const have = requiredVersion(goMod, entry.module);
    if (have !== versions[entry.version])
      problems.push(
        `cluster/tools/${entry.folder}/go.mod requires ${entry.module} ${String(have)}, versions.json says ${versions[entry.version]}`,
      );
  }
  const block = await kubernetesReplaceBlock(versions.kubernetes);
  for (const entry of MODULES.filter((m) => m.module === 'k8s.io/kubernetes')) {
    const goMod = await readFile(join(TOOLS, entry.folder, 'go.mod'), 'utf8');
    if (replaceBlockOf(goMod) !== block)
      problems.push(
        `cluster/tools/${entry.folder}/go.mod: the replace block differs from the staging modules of k8s.io/kubernetes`,
      );
  }
  return problems;
}

/** Points every tools module at versions.json, regenerates the replace block, and tidies. */
export async function syncToolsModules(log: (line: string) => void): Promise<void> {
  const versions = await readVersions();
  for (const entry of MODULES) {
    const dir = join(TOOLS, entry.folder);
    await run('go', ['mod', 'edit', `-require=${entry.module}@${versions[entry.version]}`], { cwd: dir, env: GO_ENV });
    if (entry.module === 'k8s.io/kubernetes') {
      const goMod = await readFile(join(dir, 'go.mod'), 'utf8');
      const block = await kubernetesReplaceBlock(versions.kubernetes);
      const current = replaceBlockOf(goMod);
      await writeFile(
        join(dir, 'go.mod'),
        current === undefined ? `${goMod.trimEnd()}\n\n${block}\n` : goMod.replace(current, block),
      );
    }
    await run('go', ['mod', 'tidy'], { cwd: dir, env: GO_ENV, maxBuffer: 1 << 24 });
    log(`synced cluster/tools/${entry.folder}`);
  }
}
