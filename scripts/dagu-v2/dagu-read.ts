/**
 * Dagu's side of the corpus measure: `dagu validate` on each file (accepted or the message it
 * prints), and for the accepted ones the DAG as Dagu's own loader builds it. The second is a
 * small Go program of ours, built inside the local copy of Dagu's module (internal packages are
 * importable only from there): it loads each file with the loader `validate` uses, without
 * evaluation, and prints the built DAG as JSON, one line per file.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DAGU_DIR } from './build.ts';

const run = promisify(execFile);

const DUMP_MAIN = `// Kubedag's corpus measure: prints each DAG file as Dagu's loader builds it (not part of Dagu).
package main

import (
\t"context"
\t"encoding/json"
\t"fmt"
\t"os"

\t_ "github.com/dagucloud/dagu/v2/internal/runtime/builtin" // the executors, which the loader asks what each takes
\t"github.com/dagucloud/dagu/v2/internal/spec"
)

type line struct {
\tFile  string \`json:"file"\`
\tError string \`json:"error,omitempty"\`
\tDAG   any    \`json:"dag,omitempty"\`
}

func dump(path string) (out line) {
\tout.File = path
\tdefer func() {
\t\tif r := recover(); r != nil {
\t\t\tout.Error = fmt.Sprint("panic: ", r)
\t\t}
\t}()
\tdag, err := spec.Load(context.Background(), path, spec.WithoutEval())
\tif err != nil {
\t\tout.Error = err.Error()
\t\treturn out
\t}
\tout.DAG = dag
\treturn out
}

func main() {
\tenc := json.NewEncoder(os.Stdout)
\tfor _, path := range os.Args[1:] {
\t\tif err := enc.Encode(dump(path)); err != nil {
\t\t\tfmt.Fprintln(os.Stderr, err)
\t\t\tos.Exit(1)
\t\t}
\t}
}
`;

/** Builds (once) the dump program beside the `dagu` binary; the source is the CLI build's. */
export async function ensureDump(log: (line: string) => void): Promise<string> {
  const bin = join(DAGU_DIR, 'bin', 'kubedag-dagu-dump');
  if (existsSync(bin)) return bin;
  const dir = join(DAGU_DIR, 'src', 'internal', 'kubedagdump');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'main.go'), DUMP_MAIN);
  log('go build ./internal/kubedagdump (the corpus measure reads Dagu-built DAGs through it)');
  const env = { ...process.env, GOTOOLCHAIN: 'auto', GOFLAGS: '-mod=mod' };
  await run('nice', ['-n', '10', 'go', 'build', '-p', '2', '-o', bin, './internal/kubedagdump'], {
    cwd: join(DAGU_DIR, 'src'),
    env,
    maxBuffer: 64 << 20,
  });
  return bin;
}

export interface DaguVerdict {
  readonly accepted: boolean;
  /** What `dagu validate` printed when it refused. */
  readonly message?: string;
}

/** `dagu validate` on each file, two at a time, with a DAGU_HOME of its own. */
export async function validateAll(dagu: string, files: readonly string[]): Promise<Map<string, DaguVerdict>> {
  const home = await mkdtemp(join(tmpdir(), 'kubedag-dagu-home-'));
  const env = { ...process.env, HOME: home, DAGU_HOME: home };
  const verdicts = new Map<string, DaguVerdict>();
  const queue = [...files];
  const worker = async (): Promise<void> => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
      try {
        await run(dagu, ['validate', file], { env, timeout: 60_000 });
        verdicts.set(file, { accepted: true });
      } catch (error) {
        const failed = error as { stdout?: string; stderr?: string; message: string };
        const message = `${failed.stderr ?? ''}${failed.stdout ?? ''}`.trim() || failed.message;
        verdicts.set(file, { accepted: false, message });
      }
    }
  };
  try {
    await Promise.all([worker(), worker()]);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  return verdicts;
}

/** Dagu's built DAG of each file (its JSON form), or the loader's error. */
export async function dumpAll(
  dump: string,
  files: readonly string[],
): Promise<Map<string, { dag?: unknown; error?: string }>> {
  const home = await mkdtemp(join(tmpdir(), 'kubedag-dagu-home-'));
  const out = new Map<string, { dag?: unknown; error?: string }>();
  try {
    for (let i = 0; i < files.length; i += 100) {
      const { stdout } = await run(dump, files.slice(i, i + 100), {
        env: { ...process.env, HOME: home, DAGU_HOME: home },
        maxBuffer: 256 << 20,
        timeout: 300_000,
      });
      for (const text of stdout.split('\n').filter((l) => l !== '')) {
        const parsed = JSON.parse(text) as { file: string; dag?: unknown; error?: string };
        out.set(parsed.file, { dag: parsed.dag, error: parsed.error });
      }
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
  return out;
}
