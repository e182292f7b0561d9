/**
 * The schema builder for mappings of Kubernetes' shape. Kubernetes spells keys in camelCase
 * (`imagePullPolicy`), Dagu 2.x in snake_case (`image_pull_policy`); a file may use either.
 *
 * Each camelCase key gets a snake_case twin in the schema, marked with ALIAS_OF. The twin has
 * no type of its own: the structure check renames it to the canonical key before types are
 * checked (structure.ts), so everything after it sees one spelling. Typing each twin instead
 * would copy every nested schema once per spelling at every level of nesting (affinity is six
 * deep); editors still accept both spellings and describe the twin.
 */
import Type, { type TObject, type TProperties } from 'typebox';
import { definitionMark } from './schema-builders.ts';

/** Marks a property that is another spelling of the key it names. */
export const ALIAS_OF = 'x-kubedag-alias-of';
/**
 * Marks a mapping whose unknown keys the DAG CRD must keep rather than prune, so that core/dag
 * reports a misspelt key instead of never seeing it (core/resources/schemas.ts).
 */
export const KEEP_UNKNOWN = 'x-kubedag-keep-unknown';

export function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export interface KubeObjectOptions {
  /** More spellings (Dagu's own key names) of canonical keys: alias -> canonical key. */
  readonly aliases?: Readonly<Record<string, string>>;
  /** Keys outside the schema pass the shape check and are judged by the normaliser. */
  readonly open?: boolean;
  /** Store it once in the published JSON Schema (schema-builders.ts DEFINITION). */
  readonly definition?: string;
}

/** A mapping with fixed camelCase keys that also takes each key's snake_case spelling. */
export function kubeObject<P extends TProperties>(
  properties: P,
  description: string,
  options: KubeObjectOptions = {},
): TObject<P> {
  const twins = Object.keys(properties)
    .filter((key) => /[A-Z]/.test(key))
    .map((key): [string, string] => [snakeCase(key), key]);
  const aliases = [...twins, ...Object.entries(options.aliases ?? {})].map(([alias, key]) => [
    alias,
    Type.Optional(Type.Unknown({ description: `Same as ${key}.`, [ALIAS_OF]: key })),
  ]);
  const all = { ...properties, ...Object.fromEntries(aliases) } as P;
  return Type.Object(all, {
    description,
    additionalProperties: options.open === true,
    [KEEP_UNKNOWN]: true,
    ...definitionMark(options.definition),
  });
}

/** The canonical key a property schema stands for, when it is another spelling. */
export function aliasTarget(schema: unknown): string | undefined {
  const target = (schema as Record<string, unknown> | undefined)?.[ALIAS_OF];
  return typeof target === 'string' ? target : undefined;
}
