/**
 * A minimal OpenTelemetry Collector (OTLP receiver; debug and OTLP/HTTP exporters) for tests of
 * trace export, built from the collector's Go modules (cluster/tools/otelcol: main.go, go.mod
 * and go.sum pin it) into the per-user cache like the control plane, once per machine: the
 * binary's folder is named by a hash of those files, so a changed pin builds a new one.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from './binaries.ts';

const MODULE = join(import.meta.dirname, 'tools', 'otelcol');
const FILES = ['main.go', 'go.mod', 'go.sum'];

async function moduleHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const file of FILES) hash.update(file).update('\0').update(await readFile(join(MODULE, file))).update('\0');
  return hash.digest('hex').slice(0, 12);
}

function goBuild(output: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', output, '.'], {
      cwd: MODULE,
      env: { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOFLAGS: '-mod=readonly -buildvcs=false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(new Error(error.code === 'ENOENT' ? 'go not found: Go is needed to build the test collector (see README)' : error.message));
    });
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`building the OpenTelemetry Collector failed (exit code ${String(code)}):\n${text}`));
    });
  });
}

/** The collector binary, built into the cache when missing (a few minutes the first time). */
export async function ensureCollector(env: NodeJS.ProcessEnv = process.env, log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`)): Promise<string> {
  const dir = join(cacheDir(env), 'bin', `otelcol-${await moduleHash()}`);
  const binary = join(dir, 'otelcol');
  const found = await access(binary).then(
    () => true,
    () => false,
  );
  if (found) return binary;
  log(`building the OpenTelemetry Collector from Go modules into ${dir}; the first build takes minutes`);
  await mkdir(join(dir, '..'), { recursive: true });
  // Built aside and renamed into place: a half-built collector is never "found".
  const scratch = await mkdtemp(join(dir, '..', '.otelcol-build-'));
  try {
    await goBuild(join(scratch, 'otelcol'), env);
    await rm(dir, { recursive: true, force: true });
    await rename(scratch, dir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return binary;
}
