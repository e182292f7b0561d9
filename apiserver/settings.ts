/**
 * Checking a setting against its TypeBox schema, with an error that a person at a terminal can
 * act on: it names the setting (a variable, a flag, a line of a file) and the field within it,
 * and says what is wrong in words rather than as a schema keyword.
 */
import type { Static, TSchema } from 'typebox';
import type { TLocalizedValidationError as SchemaError } from 'typebox/error';
import { Value } from 'typebox/value';

/** `/0/auth/token` as `[0].auth.token`. */
function fieldOf(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
}

function valueAt(value: unknown, pointer: string): unknown {
  let at = value;
  for (const part of pointer.split('/').slice(1)) at = (at as Record<string, unknown> | undefined)?.[part];
  return at;
}

const ARTICLE: Record<string, string> = { array: 'an array', object: 'an object', integer: 'an integer' };

/** What is wrong, as words that follow the field's name. */
function predicate(error: SchemaError, value: unknown): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      const type = String(error.params.type);
      return `must be ${ARTICLE[type] ?? `a ${type}`}`;
    }
    case 'minLength':
      return 'must not be empty';
    case 'enum':
      return `"${String(valueAt(value, error.instancePath))}" is not one of ${error.params.allowedValues.join(', ')}`;
    case 'additionalProperties': {
      const names = error.params.additionalProperties;
      return `has ${names.length > 1 ? 'unknown fields' : 'an unknown field'} ${names.map((n) => `"${n}"`).join(', ')}`;
    }
    default:
      return error.message;
  }
}

/**
 * A misspelt field explains a missing one (`baseURL` for `baseUrl`), so it is told first;
 * `false` schemas repeat what additionalProperties says, so they are never told.
 */
function first(errors: readonly SchemaError[]): SchemaError | undefined {
  const told = errors.filter((e) => e.keyword !== 'boolean');
  return told.find((e) => e.keyword === 'additionalProperties') ?? told[0];
}

/** The message for a value that fails its schema, or undefined when it passes. */
export function settingProblem(schema: TSchema, value: unknown, setting: string): string | undefined {
  if (Value.Check(schema, value)) return undefined;
  const error = first(Value.Errors(schema, value));
  if (error === undefined) return `${setting}: invalid`;
  const missing = error.keyword === 'required' ? (error.params.requiredProperties[0] ?? '') : '';
  const field =
    fieldOf(error.instancePath) + (missing === '' ? '' : `${error.instancePath === '' ? '' : '.'}${missing}`);
  // Sentences of their own (a refinement's message, an unknown value) follow a colon.
  const own = error.keyword === '~refine' || error.keyword === 'enum';
  if (field === '') return `${setting}${own ? ':' : ''} ${predicate(error, value)}`;
  return `${setting}: ${field}${own ? ':' : ''} ${predicate(error, value)}`;
}

/** The value, typed by its schema; a value that fails it stops the start with a message naming the setting. */
export function checked<T extends TSchema>(schema: T, value: unknown, setting: string): Static<T> {
  if (Value.Check(schema, value)) return value;
  throw new Error(settingProblem(schema, value, setting) ?? `${setting}: invalid`);
}

/** A string that holds more than white space. */
export function isBlank(text: string): boolean {
  return text.trim() === '';
}
