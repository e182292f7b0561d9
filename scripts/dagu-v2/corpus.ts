/**
 * The DAG files of Dagu's own tree that the corpus measure reads: every YAML file under its
 * conformance fixtures, examples and test data, and every ```yaml block of its Markdown
 * documentation (README, schema notes, specs, skills). v2.15.1 has no docs/ folder: its
 * documentation is these Markdown files, and many of its DAGs are in their code blocks. A YAML
 * file is read where it lies (a fixture may name a file beside it); a Markdown block is
 * written to a flat directory under a file name that is also a valid DAG name, since both
 * Dagu and Kubedag take a DAG's name from its file.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CorpusEntry {
  /** Where it comes from: `path` or `path#block-N` (1-based) for a Markdown block. */
  readonly source: string;
  /** The flat file the entry was written to. */
  readonly file: string;
  /** The DAG name both loaders derive from `file`. */
  readonly name: string;
  readonly kind: 'yaml' | 'markdown';
}

/** Folders whose YAML files are DAGs (or meant to be refused as DAGs). */
const YAML_ROOTS = ['conformance/', 'examples/'];
const YAML_TESTDATA = /(^|\/)testdata\//;
/** Markdown that documents the DAG format. */
const MARKDOWN = /^(README\.md|README_SCHEMA\.md|SCHEMA_MIGRATION\.md|specs\/.*\.md|skills\/.*\.md|examples\/.*\.md)$/;

export function isCorpusYaml(path: string): boolean {
  return /\.ya?ml$/.test(path) && (YAML_ROOTS.some((root) => path.startsWith(root)) || YAML_TESTDATA.test(path));
}

export function isCorpusMarkdown(path: string): boolean {
  return MARKDOWN.test(path);
}

/** The fenced ```yaml / ```yml blocks of a Markdown text, without their fences and indent. */
export function yamlBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*ya?ml\b/.exec(lines[i] ?? '');
    if (open === null) continue;
    const [, indent = '', fence = '```'] = open;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').trim().startsWith(fence); i++)
      body.push((lines[i] ?? '').startsWith(indent) ? (lines[i] ?? '').slice(indent.length) : (lines[i] ?? ''));
    blocks.push(body.join('\n') + '\n');
  }
  return blocks;
}

/**
 * A file name (and DAG name) for the n-th block of a Markdown file: its base name and the
 * block's number, letters, digits, `_` and `-` only, within both loaders' 40-character limit
 * on DAG names. No two Markdown files of the tree share a base name.
 */
export function blockName(path: string, n: number): string {
  const base = basename(path)
    .replace(/\.md$/i, '')
    .replace(/[^A-Za-z0-9_-]+/g, '_');
  return `${base.slice(0, 32)}_b${n}`;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** Unpacks `tag` of the git directory into `tree`, and writes the corpus's entries into `flat`. */
export async function collectCorpus(
  sourceGit: string,
  tag: string,
  tree: string,
  flat: string,
): Promise<CorpusEntry[]> {
  await mkdir(tree, { recursive: true });
  await mkdir(flat, { recursive: true });
  await run('sh', ['-c', `git -C "$0" archive "$1" | tar -x -C "$2"`, sourceGit, tag, tree]);
  const paths = (await walk(tree)).map((path) => relative(tree, path)).sort();
  const entries: CorpusEntry[] = [];
  for (const path of paths) {
    if (isCorpusYaml(path))
      entries.push({
        source: path,
        file: join(tree, path),
        name: basename(path).replace(/\.ya?ml$/, ''),
        kind: 'yaml',
      });
    else if (isCorpusMarkdown(path)) {
      const blocks = yamlBlocks(await readFile(join(tree, path), 'utf8'));
      for (const [i, block] of blocks.entries()) {
        const source = `${path}#block-${i + 1}`;
        const name = blockName(path, i + 1);
        const file = join(flat, `${name}.yaml`);
        await writeFile(file, block);
        entries.push({ source, file, name, kind: 'markdown' });
      }
    }
  }
  return entries;
}
