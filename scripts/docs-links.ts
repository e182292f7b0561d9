/**
 * Every relative link in the Markdown docs (README.md and docs/) names a file that exists, and
 * an anchor that a heading of that file makes. Checked by `make verify` (generate --check), so a
 * page that moves cannot leave links to its old place behind.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, normalize, relative } from 'node:path';

/** The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
}

/** The anchors of a Markdown text's headings (outside code blocks). Pure. */
export function anchorsOf(markdown: string): Set<string> {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));
}

/** The relative link targets of a Markdown text (outside code blocks), as written. Pure. */
export function linksOf(markdown: string): string[] {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? '').filter((target) => !/^[a-z]+:/.test(target));
}

async function markdownFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? markdownFiles(join(dir, e.name))
        : Promise.resolve(e.name.endsWith('.md') ? [join(dir, e.name)] : []),
    ),
  );
  return nested.flat();
}

export async function docsLinkProblems(root: string): Promise<string[]> {
  const problems: string[] = [];
  const texts = new Map<string, string>();
  const read = async (path: string): Promise<string> => {
    const known = texts.get(path);
    if (known !== undefined) return known;
    const text = await readFile(path, 'utf8');
    texts.set(path, text);
    return text;
  };
  for (const file of [join(root, 'README.md'), ...(await markdownFiles(join(root, 'docs')))]) {
    for (const link of linksOf(await read(file))) {
      const [path = '', anchor] = link.split('#');
      const target = path === '' ? file : normalize(join(dirname(file), decodeURI(path)));
      const where = `${relative(root, file)}: ${link}`;
      if (!existsSync(target)) problems.push(`${where} names no file`);
      else if (
        anchor !== undefined &&
        anchor !== '' &&
        target.endsWith('.md') &&
        !anchorsOf(await read(target)).has(anchor)
      )
        problems.push(`${where} names no heading`);
    }
  }
  return problems;
}
