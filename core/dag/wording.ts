/**
 * How DAG shape problems are worded, the one source for the server's check (structure.ts) and
 * the web UI's editor, which gets a generated copy (ui/src/generated/dag-wording.ts, `make
 * generate`), so that the editor's instant problems read like the validate endpoint's. Pure,
 * and importing nothing the browser lacks.
 */
import { distance } from 'fastest-levenshtein';

export type JsonType = 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object';

export function jsonType(value: unknown): JsonType {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'string') return 'string';
  return 'object';
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  array: 'a list',
  object: 'a mapping',
  null: 'empty',
};
const TYPE_ORDER = ['string', 'integer', 'number', 'boolean', 'array', 'object', 'null'];

/** "a string, a list or a mapping": the types named in a fixed order, a number covering an integer. */
export function typeNames(types: readonly string[]): string {
  const ordered = TYPE_ORDER.filter((t) => types.includes(t));
  const shown =
    ordered.includes('integer') && ordered.includes('number') ? ordered.filter((t) => t !== 'integer') : ordered;
  const names = shown.map((t) => TYPE_NAMES[t] ?? t);
  return names.length < 2 ? (names[0] ?? 'valid') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;
}

/** A short description of a value for messages, never echoing large content. */
export function describeValue(value: unknown): string {
  const type = jsonType(value);
  if (type === 'string') return (value as string).length > 40 ? 'a string' : `the string ${JSON.stringify(value)}`;
  if (type === 'integer' || type === 'number' || type === 'boolean') return String(value);
  return TYPE_NAMES[type] ?? type;
}

/** Whether a known key is near enough to a mistyped one to suggest it (case aside). */
export function nearKey(key: string, known: string): boolean {
  return distance(key.toLowerCase(), known.toLowerCase()) <= Math.max(2, Math.floor(key.length / 3));
}

/** The messages of the schema's keywords. */
export const SHAPE_MESSAGES = {
  required: (key: string): string => `missing required key "${key}"`,
  type: (types: readonly string[], value: unknown): string =>
    `must be ${typeNames(types)}, not ${describeValue(value)}`,
  enum: (allowed: readonly unknown[], value: unknown): string =>
    `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, not ${JSON.stringify(value)}`,
  minimum: (limit: unknown): string => `must be at least ${String(limit)}`,
  maximum: (limit: unknown): string => `must be at most ${String(limit)}`,
  /** A suggestion when one is near; else the known keys when given (the server lists them). */
  unknownKey: (suggestion: string | undefined, known?: readonly string[]): string =>
    suggestion !== undefined
      ? `unknown key; did you mean "${suggestion}"?`
      : known === undefined
        ? 'unknown key'
        : `unknown key; known keys are ${known.join(', ')}`,
} as const;
