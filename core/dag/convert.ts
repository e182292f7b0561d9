/**
 * `kubedag convert`: a DAG file rewritten from one dialect of Dagu's format into the other,
 * each document on its own. Gather (parse the text twice: as data, and as a syntax tree that
 * keeps comments), decide (the pure rewrites of convert-to-2x.ts and convert-to-1x.ts), act
 * (write the result onto the tree, then check that it loads to the same model as the source).
 * docs/decisions/2026-11-29-dagu-2x-convert.md.
 */
import { isDeepStrictEqual } from 'node:util';
import { Document, parseAllDocuments } from 'yaml';
import { twoXToOneX } from './convert-to-1x.ts';
import { oneXToTwoX, type Rewrite } from './convert-to-2x.ts';
import { syncNode } from './convert-sync.ts';
import { decideDialect, type Dialect } from './dialect.ts';
import { isRefusal } from './dialect-refusal.ts';
import { issue, nestIssues, type DagIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { parseYamlDocuments } from './yaml.ts';

export interface ConvertOptions {
  /** The dialect to write; by default the other one than the first document's. */
  readonly to?: Dialect;
  /** Write the result even when something could not be carried over (it is left out). */
  readonly lossy?: boolean;
  /** The file name without extension (the DAG's default name, for the model check). */
  readonly fileName?: string;
}

export interface Conversion {
  /** The rewritten file; absent when the source is invalid, or something is lost without `lossy`. */
  readonly text?: string;
  readonly to: Dialect;
  /** Each document's dialect as written. */
  readonly from: Dialect[];
  /** What could not be carried over, at the path the source wrote it (later documents under `documents[i]`). */
  readonly losses: DagIssue[];
  /** Why nothing was converted: the source's own errors, or a rewrite that would change the model. */
  readonly errors: DagIssue[];
}

type Mapping = Record<string, unknown>;

const WRITE = { lineWidth: 0, flowCollectionPadding: false } as const;

const OTHER: Readonly<Record<Dialect, Dialect>> = { '1.x': '2.x', '2.x': '1.x' };

export function convertDag(text: string, options: ConvertOptions = {}): Conversion {
  const load = loadDag(text, { fileName: options.fileName });
  // A 2.x feature Kubedag refuses is something the conversion cannot carry; any other error
  // means there is no DAG to convert yet.
  const errors = load.errors.filter((error) => !isRefusal(error));
  const data = parseYamlDocuments(text).documents;
  const from = data.map((document) => decideDialect(document).dialect);
  const to = options.to ?? OTHER[from[0] ?? '1.x'];
  if (errors.length > 0) return { to, from, losses: [], errors };
  const docs = parseAllDocuments(text, { merge: true });
  if (!Array.isArray(docs) || docs.length !== data.length)
    return { to, from, losses: [], errors: [issue('', 'the file could not be read as YAML documents')] };
  const losses: DagIssue[] = [];
  const added: string[] = [];
  docs.forEach((doc, i) => {
    const document = data[i];
    if (from[i] === to || document === null || typeof document !== 'object' || Array.isArray(document)) return;
    const rewrite: Rewrite = to === '2.x' ? oneXToTwoX(document as Mapping) : twoXToOneX(document as Mapping);
    losses.push(...(i === 0 ? rewrite.losses : nestIssues(`documents[${i}]`, rewrite.losses)));
    doc.contents = syncNode(doc, doc.contents, rewrite.document) as typeof doc.contents;
    added.push(...(rewrite.documents ?? []).map((value) => `---\n${new Document(value).toString(WRITE)}`));
  });
  if (losses.length > 0 && options.lossy !== true) return { to, from, losses, errors: [] };
  // Documents a rewrite added go after the file's own, where the loader puts foreach bodies.
  const converted = [...docs.map((doc) => doc.toString(WRITE)), ...added].join('');
  const changed =
    losses.length === 0 ? modelChange(load, loadDag(converted, { fileName: options.fileName }), converted, to) : [];
  return changed.length > 0 ? { to, from, losses, errors: changed } : { text: converted, to, from, losses, errors: [] };
}

/**
 * The check that keeps the rewrite honest: a result that does not load, or loads to another
 * model, is never written (a rule missing from the rewrite shows up here, not in a run).
 */
function modelChange(
  source: ReturnType<typeof loadDag>,
  result: ReturnType<typeof loadDag>,
  converted: string,
  to: Dialect,
): DagIssue[] {
  const same =
    result.errors.length === 0 &&
    isDeepStrictEqual(result.dag, source.dag) &&
    isDeepStrictEqual(
      result.localDags.map((local) => local.dag),
      source.localDags.map((local) => local.dag),
    );
  if (same) return [];
  // A 2.x result that writes no key only 2.x has is read as 1.x by Kubedag, which then takes
  // 2.x's spelling of an executor's settings (container_name) for unknown settings.
  const ambiguous = to === '2.x' && decideDialect(parseYamlDocuments(converted).documents[0]).marker === undefined;
  return [
    issue(
      '',
      ambiguous
        ? 'the 2.x rewrite has no key that only Dagu 2.x writes, so Kubedag would read it as 1.x and its executor settings in 2.x spelling differently; add a 2.x key (a step written with run:) and convert again'
        : 'the rewrite would change what the DAG means (a Kubedag bug: please report the file)',
    ),
    ...result.errors.map((error) => issue(error.path, `the rewrite would not load: ${error.message}`)),
  ];
}
