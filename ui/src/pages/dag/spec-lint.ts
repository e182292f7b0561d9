/**
 * Problems of a DAG spec as the editor shows them, each placed on the characters it is about:
 * (a) at once, from the YAML parse and the DAG JSON Schema, in the browser; (b) a moment later,
 * from the server's validate endpoint, which knows everything the loader checks (unknown
 * dependencies, duplicate names, executors). Its answer replaces the browser's for the text
 * it was asked about.
 */
import { LineCounter, parseAllDocuments, type Document } from 'yaml';
import { validateOneX, validateTwoX } from '../../generated/dag-validate.js';
import { decideDialect } from '../../generated/dialect/dialect-decide.ts';
import { schemaIssues, type SchemaIssue } from './schema-check.ts';
import { documentOf, locate, offsetAt, pathText, splitMessage, type Segment, type Span } from './yaml-paths.ts';

export interface Problem extends Span {
  /** 1-based, for people and tests. */
  readonly line: number;
  readonly message: string;
  readonly source: 'schema' | 'server';
}

export interface ParsedSpec {
  readonly text: string;
  readonly docs: readonly Document.Parsed[];
  readonly lines: LineCounter;
}

// As the server's loader: YAML 1.2 core types plus `<<` merge keys, duplicate keys refused.
export function parseSpec(text: string): ParsedSpec {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { merge: true, uniqueKeys: true, prettyErrors: false, lineCounter: lines });
  return { text, docs: Array.isArray(docs) ? docs : [], lines };
}

function problem(spec: ParsedSpec, span: Span, message: string, source: Problem['source']): Problem {
  return { ...span, line: spec.lines.linePos(span.from).line, message, source };
}

function withDocument(index: number, path: readonly Segment[]): Segment[] {
  return index === 0 ? [...path] : ['documents', index, ...path];
}

function located(spec: ParsedSpec, path: readonly Segment[], preferKey: boolean): Span {
  const { index, rest } = documentOf(path);
  const doc = spec.docs[index] ?? spec.docs[0];
  return doc === undefined
    ? { from: 0, to: Math.min(spec.text.length, Math.max(1, spec.text.indexOf('\n'))) }
    : locate(spec.text, doc, rest, preferKey);
}

/** A span of blanks would underline nothing one can see: take the rest of its line instead. */
function visible(text: string, from: number, to: number): Span {
  if (text.slice(from, to).trim() !== '') return { from, to };
  const newline = text.indexOf('\n', from);
  const end = newline === -1 ? text.length : newline;
  const start = from + (text.slice(from, end).length - text.slice(from, end).trimStart().length);
  return end > start ? { from: start, to: end } : { from, to };
}

/** The first syntax error of each document: the ones after it mostly follow from it. */
function syntaxProblems(spec: ParsedSpec): Problem[] {
  return spec.docs.flatMap((doc) =>
    doc.errors.slice(0, 1).map((error) => {
      const [from, to] = error.pos;
      const reason = error.message.split('\n')[0] ?? error.message;
      return problem(spec, visible(spec.text, from, Math.max(to, from + 1)), `invalid YAML: ${reason}`, 'schema');
    }),
  );
}

function documentData(doc: Document.Parsed): { data?: unknown; error?: string } {
  try {
    return { data: doc.toJS({ maxAliasCount: 100 }) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * One document's issues: its dialect decided as the loader decides it (a generated copy of
 * core/dag's decision), the "mixes dialects" error the server gives, and the schema of its own
 * dialect, so that a 2.x key is not "unknown" and a hint names a key of the document's dialect.
 * The key the mix error is about is not also reported as unknown.
 */
export function documentIssues(data: unknown): SchemaIssue[] {
  const decision = decideDialect(data);
  const mixes = decision.errors.map((error): SchemaIssue => {
    const { path } = splitMessage(`${error.path}: x`);
    return { path, message: error.message, atKey: true };
  });
  const validate = decision.dialect === '2.x' ? validateTwoX : validateOneX;
  if (validate(data)) return mixes;
  const mixed = new Set(mixes.map((issue) => pathText(issue.path)));
  const schema = schemaIssues(validate.errors ?? []).filter(
    (issue) => !(issue.atKey && mixed.has(pathText(issue.path))),
  );
  return [...mixes, ...schema];
}

/** (a): YAML syntax, else each document against the DAG JSON Schema of its dialect. */
export function schemaProblems(spec: ParsedSpec): Problem[] {
  const syntax = syntaxProblems(spec);
  if (syntax.length > 0) return syntax;
  return spec.docs.flatMap((doc, index) => {
    const { data, error } = documentData(doc);
    if (error !== undefined)
      return [problem(spec, located(spec, withDocument(index, []), false), `invalid YAML: ${error}`, 'schema')];
    // An empty document is the loader's to judge; it has nothing to place a problem on.
    if (data === null || data === undefined) return [];
    return documentIssues(data).map((issue) => {
      const path = withDocument(index, issue.path);
      const place = pathText(path);
      return problem(
        spec,
        locate(spec.text, doc, issue.path, issue.atKey),
        place === '' ? issue.message : `${place}: ${issue.message}`,
        'schema',
      );
    });
  });
}

const YAML_AT = /^invalid YAML at line (\d+), column (\d+): /;

/** (b): the server's messages (`path: message`), each placed where its path leads. */
export function serverProblems(spec: ParsedSpec, errors: readonly string[]): Problem[] {
  return errors.map((error) => {
    const at = YAML_AT.exec(error);
    if (at !== null) {
      const from = offsetAt(spec.lines, spec.text, Number(at[1]), Number(at[2]));
      const span =
        spec.text.length === 0
          ? { from: 0, to: 0 }
          : { from: Math.min(from, spec.text.length - 1), to: Math.min(from + 1, spec.text.length) };
      return problem(spec, span, error, 'server');
    }
    const { path, text } = splitMessage(error);
    return problem(spec, located(spec, path, /\b(unknown|duplicate) key\b/.test(text)), error, 'server');
  });
}

/**
 * What the editor shows: the server's problems once it has answered for this very text (it
 * checks everything the browser does, after the same key rewrites, and more), the browser's
 * until then or when the server cannot be asked.
 */
export function shownProblems(local: readonly Problem[], server: readonly Problem[] | undefined): Problem[] {
  return [...(server ?? local)].sort((a, b) => a.from - b.from || a.to - b.to);
}
