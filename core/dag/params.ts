/**
 * DAG parameters: the defaults a file declares, the overrides a caller sends, how the two
 * merge, and the JSON encoding the API returns.
 */
import { Ajv } from 'ajv';
import { splitWords } from './command.ts';
import { childPath, issue, pointerToPath, type DagIssue } from './issues.ts';
import type { ParamDef, Params } from './model.ts';

const NAMED = /^([A-Za-z_][A-Za-z0-9_]*)=/;
const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface ParamToken {
  /** Absent for a positional value. */
  readonly name?: string;
  readonly value: string;
}

/**
 * Reads `A=1 B="two words" positional` into tokens. Double and single quotes group words
 * (`\"` escapes inside double quotes); backtick spans are kept verbatim for the runtime.
 */
export function tokenizeParams(text: string): { tokens: ParamToken[]; error?: string } {
  const { words, error } = splitWords(text);
  const tokens = words.map((word): ParamToken => {
    const named = NAMED.exec(word.raw);
    if (named?.[1] === undefined) return { value: word.text };
    return { name: named[1], value: word.text.slice(named[0].length) };
  });
  return error === undefined ? { tokens } : { tokens, error: error.replace(' in command', '') };
}

/** How the API's params strings and YAML scalars become parameter values. */
export function paramValue(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** Numbers positional tokens 1, 2, ... in the order they appear, keeping named ones as named. */
export function numberTokens(tokens: readonly ParamToken[]): ParamDef[] {
  let position = 0;
  return tokens.map((token) => {
    if (token.name !== undefined) return { name: token.name, value: token.value, positional: false };
    position += 1;
    return { name: String(position), value: token.value, positional: true };
  });
}

type ParamsInput = string | readonly (string | Record<string, unknown>)[] | Record<string, unknown> | undefined;

/** Turns the accepted `params:` forms into ordered defaults plus an optional JSON Schema. */
export function paramsFromFile(input: ParamsInput, path: string): { params: Params; errors: DagIssue[] } {
  if (input === undefined) return { params: { entries: [] }, errors: [] };
  if (typeof input === 'string' || Array.isArray(input)) {
    const { tokens, errors } = tokensOf(input as string | readonly (string | Record<string, unknown>)[], path);
    return { params: { entries: numberTokens(tokens) }, errors };
  }
  const form = input as Record<string, unknown>;
  if ('schema' in form) {
    const values = form.values as ParamsInput;
    const inner = paramsFromFile(values, childPath(path, 'values'));
    const schema = form.schema as Record<string, unknown> | string;
    const errors = [...inner.errors, ...checkSchema(schema, childPath(path, 'schema'))];
    if (errors.length > 0 || typeof schema === 'string' || inner.params.entries.some((e) => /[$`]/.test(e.value))) {
      // A file or URL schema, or defaults that are only known per run, are checked by the runtime.
      return { params: { entries: inner.params.entries, schema }, errors };
    }
    // A required parameter without a default is given per run, and checked when the run starts.
    const applied = applyParamsSchema(schema, inner.params.entries, false);
    return { params: { entries: applied.entries, schema }, errors: applied.errors };
  }
  // A plain mapping has no order of its own worth trusting across tools; sort like the reference.
  const tokens = Object.keys(form)
    .sort()
    .map((name) => ({ name, value: paramValue(form[name]) }));
  return { params: { entries: numberTokens(tokens) }, errors: [] };
}

function tokensOf(
  input: string | readonly (string | Record<string, unknown>)[],
  path: string,
): { tokens: ParamToken[]; errors: DagIssue[] } {
  const errors: DagIssue[] = [];
  const items = typeof input === 'string' ? [input] : input;
  const tokens = items.flatMap((item, i): ParamToken[] => {
    const at = typeof input === 'string' ? path : childPath(path, i);
    if (typeof item !== 'string')
      return Object.entries(item).map(([name, value]) => ({ name, value: paramValue(value) }));
    // The contract: list entries are names (with an empty default) or `name: default` maps.
    if (typeof input !== 'string' && BARE_NAME.test(item.trim())) return [{ name: item.trim(), value: '' }];
    const parsed = tokenizeParams(item);
    if (parsed.error !== undefined) errors.push(issue(at, parsed.error));
    return parsed.tokens;
  });
  return { tokens, errors };
}

function checkSchema(schema: Record<string, unknown> | string, path: string): DagIssue[] {
  if (typeof schema === 'string') return schema.trim() === '' ? [issue(path, 'must name a schema file or URL')] : [];
  try {
    newAjv().compile(schema);
    return [];
  } catch (error) {
    return [issue(path, `is not a valid JSON Schema: ${(error as Error).message}`)];
  }
}

function newAjv(): Ajv {
  // Parameters arrive as text; coercion lets a schema say `type: integer` for `COUNT=3`.
  return new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false });
}

/**
 * Validates parameter values against the DAG's inline JSON Schema and fills its defaults.
 * Returns the entries with defaults appended in the schema's property order. `checkRequired`
 * false leaves out the required parameters a file need not give (a run gives them).
 */
export function applyParamsSchema(
  schema: Record<string, unknown>,
  entries: readonly ParamDef[],
  checkRequired = true,
): { entries: ParamDef[]; errors: DagIssue[] } {
  const data: Record<string, unknown> = {};
  for (const entry of entries) if (!entry.positional) data[entry.name] = entry.value;
  let validate;
  try {
    validate = newAjv().compile(schema);
  } catch (error) {
    return {
      entries: [...entries],
      errors: [issue('params.schema', `is not a valid JSON Schema: ${(error as Error).message}`)],
    };
  }
  const problems = validate(data)
    ? []
    : (validate.errors ?? []).filter((e) => checkRequired || e.keyword !== 'required');
  if (problems.length > 0) {
    const errors = problems.map((e) =>
      issue(
        pointerToPath(e.instancePath) === '' ? 'params' : childPath('params', pointerToPath(e.instancePath)),
        e.message ?? 'is invalid',
      ),
    );
    return { entries: [...entries], errors };
  }
  const updated = entries.map((entry) =>
    entry.positional ? entry : { ...entry, value: paramValue(data[entry.name]) },
  );
  const present = new Set(entries.map((entry) => entry.name));
  for (const [name, value] of Object.entries(data)) {
    if (!present.has(name)) updated.push({ name, value: paramValue(value), positional: false });
  }
  return { entries: updated, errors: [] };
}

/**
 * Reads caller overrides: a JSON object string (named; keys "1", "2", ... are positional),
 * a JSON array string (positional, in order), or `NAME=value ...` tokens.
 */
export function parseParamOverrides(text: string): { tokens: ParamToken[]; error?: string } {
  const trimmed = text.trim();
  if (trimmed === '') return { tokens: [] };
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const parsed = tryJson(trimmed);
    if (Array.isArray(parsed)) return { tokens: parsed.map((value) => ({ value: paramValue(value) })) };
    if (parsed !== null && typeof parsed === 'object') {
      return {
        tokens: Object.entries(parsed as Record<string, unknown>).map(([name, value]) => ({
          name,
          value: paramValue(value),
        })),
      };
    }
  }
  return tokenizeParams(text);
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Applies overrides to defaults: a named override replaces the parameter of that name or is
 * appended; the n-th positional override (or key "n") replaces positional n or is appended.
 * A positional override never replaces a named default.
 */
export function applyParamOverrides(defaults: readonly ParamDef[], overrides: readonly ParamToken[]): ParamDef[] {
  const result = [...defaults];
  let position = 0;
  for (const token of overrides) {
    const positionalName =
      token.name === undefined ? String((position += 1)) : /^[1-9]\d*$/.test(token.name) ? token.name : undefined;
    const name = positionalName ?? token.name ?? '';
    const positional = positionalName !== undefined;
    const index = result.findIndex((entry) => entry.name === name && entry.positional === positional);
    const entry = { name, value: token.value, positional };
    if (index === -1) result.push(entry);
    else result[index] = entry;
  }
  return result;
}

/**
 * The API's JSON encoding of parameters: an object from name to value in effective order,
 * or the empty string when there are none.
 * Built by hand because a JavaScript object would move integer-like keys ("1", "2") first.
 */
export function encodeParams(entries: readonly ParamDef[]): string {
  if (entries.length === 0) return '';
  return `{${entries.map((entry) => `${JSON.stringify(entry.name)}:${JSON.stringify(entry.value)}`).join(',')}}`;
}
