/**
 * docs/decisions/README.md lists every decision note: each note in the folder has a line that
 * links it, and each link names a note that exists. Checked by `make verify` (generate --check);
 * the lines themselves (status, summary) are written by hand.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What is wrong between the notes in the folder and the links of the index. Pure. */
export function indexProblems(notes: readonly string[], index: string): string[] {
  const linked = new Set([...index.matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1] ?? '').filter((target) => !target.includes('/')));
  const present = new Set(notes);
  return [
    ...notes.filter((note) => !linked.has(note)).map((note) => `docs/decisions/${note} has no line in docs/decisions/README.md`),
    ...[...linked].filter((target) => !present.has(target)).map((target) => `docs/decisions/README.md links ${target}, which is not there`),
  ];
}

export async function decisionsIndexProblems(root: string): Promise<string[]> {
  const dir = join(root, 'docs/decisions');
  const notes = (await readdir(dir)).filter((name) => name.endsWith('.md') && name !== 'README.md');
  return indexProblems(notes, await readFile(join(dir, 'README.md'), 'utf8'));
}
