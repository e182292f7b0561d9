/**
 * docs/decisions/README.md lists every decision note, and docs/reports/README.md every report:
 * each note in the folder has a line that links it, and each link names a note that exists.
 * Checked by `make verify` (generate --check); the lines themselves (status, summary) are
 * written by hand.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The folders whose README.md indexes every note in them. */
const INDEXED = ['docs/decisions', 'docs/reports'] as const;

/** What is wrong between the notes in `folder` and the links of its index. Pure. */
export function indexProblems(notes: readonly string[], index: string, folder = 'docs/decisions'): string[] {
  const linked = new Set(
    [...index.matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1] ?? '').filter((target) => !target.includes('/')),
  );
  const present = new Set(notes);
  return [
    ...notes.filter((note) => !linked.has(note)).map((note) => `${folder}/${note} has no line in ${folder}/README.md`),
    ...[...linked]
      .filter((target) => !present.has(target))
      .map((target) => `${folder}/README.md links ${target}, which is not there`),
  ];
}

export async function decisionsIndexProblems(root: string): Promise<string[]> {
  const problems: string[] = [];
  for (const folder of INDEXED) {
    const dir = join(root, folder);
    const notes = (await readdir(dir)).filter((name) => name.endsWith('.md') && name !== 'README.md');
    const index = await readFile(join(dir, 'README.md'), 'utf8').catch(() => '');
    problems.push(...indexProblems(notes, index, folder));
  }
  return problems;
}
