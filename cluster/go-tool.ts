/**
 * A program that tests start (a collector, an S3 server), built from Go modules pinned in a
 * folder under tools/ into the per-user cache like the control plane, once per machine: the
 * binary's folder is named by a hash of the pinning files, so a changed pin builds a new one.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheDir } from '../build/cache-dir.ts';

export interface GoTool {
  /** Folder under cluster/tools with go.mod and go.sum (and main.go when the module is the program). */
  readonly folder: string;
  /** The binary's name, and what the build log calls it. */
  readonly name: string;
  readonly title: string;
  /** The package to build: `.` for the folder's own main.go, else a package its go.mod requires. */
  readonly pkg: string;
  /** Built with cgo (a C compiler is then needed): for a tool whose storage is SQLite through mattn/go-sqlite3. */
  readonly cgo?: boolean;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function moduleHash(dir: string, cgo: boolean): Promise<string> {
  const hash = createHash('sha256');
  // Only when on, so that the folders of tools built without cgo keep their names.
  if (cgo) hash.update('cgo\0');
  for (const file of ['main.go', 'go.mod', 'go.sum']) {
    const path = join(dir, file);
    if (await exists(path))
      hash
        .update(file)
        .update('\0')
        .update(await readFile(path))
        .update('\0');
  }
  return hash.digest('hex').slice(0, 12);
}

function goBuild(tool: GoTool, dir: string, output: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['build', '-trimpath', '-ldflags=-s -w', '-o', output, tool.pkg], {
      cwd: dir,
      env: {
        ...env,
        GOTOOLCHAIN: 'local',
        CGO_ENABLED: tool.cgo === true ? '1' : '0',
        GOFLAGS: '-mod=readonly -buildvcs=false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        new Error(
          error.code === 'ENOENT'
            ? `go not found: Go is needed to build ${tool.title} for the tests (see README)`
            : error.message,
        ),
      );
    });
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`building ${tool.title} failed (exit code ${String(code)}):\n${text}`));
    });
  });
}

/** The tool's binary, built into the cache when missing (minutes the first time). */
export async function ensureGoTool(
  tool: GoTool,
  env: NodeJS.ProcessEnv = process.env,
  log: (line: string) => void = (line) => void process.stderr.write(`${line}\n`),
): Promise<string> {
  const module = join(import.meta.dirname, 'tools', tool.folder);
  const dir = join(cacheDir(env), 'bin', `${tool.name}-${await moduleHash(module, tool.cgo === true)}`);
  const binary = join(dir, tool.name);
  if (await exists(binary)) return binary;
  log(`building ${tool.title} from Go modules into ${dir}; the first build takes minutes`);
  await mkdir(join(dir, '..'), { recursive: true });
  // Built aside and renamed into place: a half-built binary is never "found".
  const scratch = await mkdtemp(join(dir, '..', `.${tool.name}-build-`));
  try {
    await goBuild(tool, module, join(scratch, tool.name), env);
    await rm(dir, { recursive: true, force: true });
    await rename(scratch, dir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  return binary;
}
