/**
 * Dagu v2.15.1's CLI and web UI built on this machine, once, under
 * ~/.cache/kubedag/dagu-v2.15.1/ (never in the repository): the source from a git directory
 * that holds the tag (the `fetch github:dagucloud/dagu` mirror by default, since the module is
 * not on the Go proxy), Go modules from the Go proxy, the UI's packages from the npm registry.
 * Three local changes make it build here, each because a registry lacks a release the tag pins:
 * swr-openapi 5.5.2 is gone from npm (5.5.1 is used), and the aqua tool installer's and the
 * Alibaba KMS secret provider's modules are not on the Go proxy (both left out of the binary;
 * neither is used by what the proof drives).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const DAGU_TAG = 'v2.15.1';
export const DAGU_DIR = join(homedir(), '.cache', 'kubedag', 'dagu-v2.15.1');
export const DEFAULT_SOURCE_GIT = '/work/.mirror/dagucloud+dagu/repo';
const PNPM = 'pnpm@10.13.1';

export interface DaguBuild {
  /** The `dagu` binary. */
  bin: string;
  /** The UI's webpack output, served at /assets/. */
  assets: string;
}

const AQUA_STUB = `// Local build stub: aqua's module is not on the Go proxy this machine reaches.
package aqua

import (
\t"context"
\t"errors"

\t"github.com/dagucloud/dagu/v2/internal/ir"
\t"github.com/dagucloud/dagu/v2/internal/tools"
)

type Installer struct{}

func New() *Installer { return &Installer{} }

func (i *Installer) Install(context.Context, *ir.ToolConfig, tools.InstallOptions) (*tools.Manifest, error) {
\treturn nil, errors.New("aqua tool installation is not built into this local Dagu")
}
`;

/** Runs a build command at low priority, its output into a log file; throws with the log's path. */
async function heavy(log: string, cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('nice', ['-n', '10', command, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('close', (code) => {
      void writeFile(log, Buffer.concat(chunks)).then(() => {
        if (code === 0) resolve();
        else reject(new Error(`${command} ${args.join(' ')} failed; see ${log}`));
      });
    });
  });
}

async function unpackSource(src: string, sourceGit: string): Promise<void> {
  await mkdir(src, { recursive: true });
  const archive = join(DAGU_DIR, 'source.tar');
  await run('git', ['-C', sourceGit, 'archive', '-o', archive, DAGU_TAG]);
  await run('tar', ['-xf', archive, '-C', src]);
  await rm(archive);
  const pkg = join(src, 'ui', 'package.json');
  await writeFile(pkg, (await readFile(pkg, 'utf8')).replace('"swr-openapi": "5.5.2"', '"swr-openapi": "5.5.1"'));
  await mkdir(join(DAGU_DIR, 'removed'), { recursive: true });
  await rename(join(src, 'internal/tools/aqua'), join(DAGU_DIR, 'removed', 'aqua'));
  await rename(join(src, 'internal/secret/providers/alibaba.go'), join(DAGU_DIR, 'removed', 'alibaba.go'));
  await mkdir(join(src, 'internal/tools/aqua'));
  await writeFile(join(src, 'internal/tools/aqua/stub.go'), AQUA_STUB);
  // The binary embeds `assets/*`, which the UI build would fill; the proof serves the UI itself.
  await writeFile(join(src, 'internal/service/frontend/assets/placeholder.txt'), 'placeholder\n');
}

async function buildUi(src: string, log: (line: string) => void): Promise<void> {
  const tools = join(DAGU_DIR, 'pnpm');
  if (!existsSync(join(tools, 'bin', 'pnpm'))) await run('npm', ['i', '-g', '--prefix', tools, PNPM]);
  const env = { ...process.env, PATH: `${join(tools, 'bin')}:${process.env.PATH ?? ''}` };
  const ui = join(src, 'ui');
  log('pnpm install (npm registry)');
  await heavy(
    join(DAGU_DIR, 'pnpm-install.log'),
    ui,
    'pnpm',
    ['install', '--no-frozen-lockfile', '--ignore-scripts'],
    env,
  );
  log('webpack (production build of the UI; minutes on a busy machine)');
  const webpackEnv = { ...env, NODE_OPTIONS: '--max-old-space-size=4096' };
  await heavy(
    join(DAGU_DIR, 'ui-build.log'),
    ui,
    'pnpm',
    ['exec', 'webpack', '--config', 'webpack.prod.js'],
    webpackEnv,
  );
}

/** The built CLI only (the corpus measure needs no UI), building what is missing. */
export async function ensureDaguCli(sourceGit: string, log: (line: string) => void): Promise<string> {
  const src = join(DAGU_DIR, 'src');
  const bin = join(DAGU_DIR, 'bin', 'dagu');
  if (!existsSync(join(src, 'go.mod'))) {
    log(`unpacking ${DAGU_TAG} from ${sourceGit}`);
    await unpackSource(src, sourceGit);
  }
  if (!existsSync(bin)) {
    log('go build ./cmd (Go proxy; go 1.27 through GOTOOLCHAIN=auto)');
    const env = { ...process.env, GOTOOLCHAIN: 'auto', GOFLAGS: '-mod=mod' };
    const args = ['build', '-p', '2', '-ldflags', `-X 'main.version=${DAGU_TAG.slice(1)}'`, '-o', bin, './cmd'];
    await heavy(join(DAGU_DIR, 'go-build.log'), src, 'go', args, env);
  }
  return bin;
}

/** The built CLI and UI, building what is missing; `log` gets one line per step. */
export async function ensureDagu(sourceGit: string, log: (line: string) => void): Promise<DaguBuild> {
  const src = join(DAGU_DIR, 'src');
  const build = { bin: await ensureDaguCli(sourceGit, log), assets: join(src, 'ui', 'dist') };
  if (!existsSync(join(build.assets, 'bundle.js'))) await buildUi(src, log);
  return build;
}
