/**
 * No two folders import each other, unless one holds the other (a folder's root wires its
 * subfolders and they read its shared modules). Circles between files are dpdm's job; this
 * catches the looser tangle issue 27 found (run <-> notify, cluster <-> image), where each folder
 * leans on the other without any one file circle. Test files are leaves: nothing imports them,
 * so they are left out. `node scripts/folder-pairs.ts` is part of `make lint`.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative, sep } from 'node:path';
import ts from 'typescript';

export interface Import {
  readonly from: string;
  readonly to: string;
}

/** Whether folder `a` is `b` or holds it. */
function holds(a: string, b: string): boolean {
  return a === b || b.startsWith(a + sep) || a === '.';
}

/**
 * The folder pairs that import each other, each with one import per direction as proof. Pure:
 * `imports` are repository-relative file paths.
 */
export function tangledPairs(
  imports: readonly Import[],
): Array<{ readonly pair: [string, string]; readonly proof: [Import, Import] }> {
  const first = new Map<string, Import>();
  for (const edge of imports) {
    const a = dirname(edge.from);
    const b = dirname(edge.to);
    if (holds(a, b) || holds(b, a)) continue;
    const key = `${a}\0${b}`;
    if (!first.has(key)) first.set(key, edge);
  }
  const pairs: Array<{ readonly pair: [string, string]; readonly proof: [Import, Import] }> = [];
  for (const [key, edge] of first) {
    const [a = '', b = ''] = key.split('\0');
    const back = first.get(`${b}\0${a}`);
    if (a < b && back !== undefined) pairs.push({ pair: [a, b], proof: [edge, back] });
  }
  return pairs.sort((x, y) => x.pair.join().localeCompare(y.pair.join()));
}

const ROOTS = [
  'core',
  'operator',
  'apiserver',
  'step',
  'cli',
  'cluster',
  'image',
  'build',
  'scripts',
  'bench',
  'test',
  'ui/src',
];

async function sourceFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name))
    .map((e) => join(relative('.', e.parentPath), e.name))
    .filter((file) => !file.split(sep).includes('node_modules') && !file.split(sep).includes('generated'));
}

/** The relative imports (type-only and dynamic ones too) of the repository's source files. */
async function repositoryImports(): Promise<Import[]> {
  const files = (await Promise.all(ROOTS.map(sourceFiles))).flat();
  const imports: Import[] = [];
  for (const from of files) {
    const info = ts.preProcessFile(await readFile(from, 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      if (fileName.startsWith('.')) imports.push({ from, to: normalize(join(dirname(from), fileName)) });
    }
  }
  return imports;
}

if (import.meta.main) {
  const pairs = tangledPairs(await repositoryImports());
  for (const { pair, proof } of pairs) {
    console.error(`${pair[0]} <-> ${pair[1]}: ${proof[0].from} -> ${proof[0].to}, ${proof[1].from} -> ${proof[1].to}`);
  }
  if (pairs.length > 0) {
    console.error(`${pairs.length} folder pair(s) import each other; move what both need into one of them or a third`);
    process.exit(1);
  }
}
