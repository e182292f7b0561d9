/**
 * Writes every generated file from its TypeScript source; with --check, fails (exit 1) when a
 * committed file differs from what its source generates. `make generate` / `make verify`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dagJsonSchema } from '../core/dag/schema.ts';

interface Generated {
  readonly path: string;
  readonly content: () => string;
}

const GENERATED: readonly Generated[] = [
  { path: 'schemas/dag.schema.json', content: () => `${JSON.stringify(dagJsonSchema(), null, 2)}\n` },
];

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const file of GENERATED) {
  const target = join(root, file.path);
  const want = file.content();
  const have = await readFile(target, 'utf8').catch(() => undefined);
  if (have === want) continue;
  if (check) {
    console.error(`${file.path} is out of date: run \`make generate\` and commit the result`);
    stale += 1;
    continue;
  }
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, want);
  console.log(`wrote ${file.path}`);
}
if (stale > 0) process.exit(1);
if (check) console.log(`generated files are current (${GENERATED.length} checked)`);
