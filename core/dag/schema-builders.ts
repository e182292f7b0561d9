/**
 * The small builders the DAG file format is written with (schema.ts, step-schema.ts and the
 * kubernetes block), apart so that every part can use them without importing another part.
 */
import Type, {
  type TObject,
  type TProperties,
  type TString,
  type TBoolean,
  type TInteger,
  type TUnion,
  type TArray,
  type TRecord,
} from 'typebox';

export function text(description: string): TString {
  return Type.String({ description });
}
export function flag(description: string): TBoolean {
  return Type.Boolean({ description });
}
export function count(description: string, minimum = 0): TInteger {
  return Type.Integer({ description, minimum });
}
export function oneOrMany(description: string): TUnion<[TString, TArray<TString>]> {
  return Type.Union([Type.String(), Type.Array(Type.String())], { description });
}
/**
 * Marks a schema that the published JSON Schema stores once under `definitions` and refers to
 * where it is used (schema.ts), and that the CRD describes without typing it, since CRD
 * schemas cannot refer and a copy at each use would make them huge (core/resources).
 */
export const DEFINITION = 'x-kubedag-definition';

/** A mapping with a fixed set of keys; any other key is an error. */
export function object<P extends TProperties>(properties: P, description: string, definition?: string): TObject<P> {
  return Type.Object(properties, { description, additionalProperties: false, ...definitionMark(definition) });
}

export function definitionMark(name: string | undefined): Record<string, string> {
  return name === undefined ? {} : { [DEFINITION]: name };
}

/** The definition name a schema node carries, if any. */
export function definitionName(schema: unknown): string | undefined {
  const name = (schema as Record<string, unknown> | null | undefined)?.[DEFINITION];
  return typeof name === 'string' ? name : undefined;
}
export const scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export function stringMap(description: string): TRecord<'^.*$', typeof scalar> {
  return Type.Record(Type.String(), scalar, { description });
}
