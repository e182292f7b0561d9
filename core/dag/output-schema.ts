/**
 * Dagu 2.x's `output_schema` (v2.15.1 internal/spec/step_types.go resolveOutputSchemaDeclaration,
 * internal/runtime/node.go evaluateOutputSchema): an inline JSON Schema of an object that a
 * succeeded attempt's stdout, decoded as JSON, must pass. The loader checks the schema here; the
 * operator judges the stdout with the same compiled validator (operator/run/decide/output-schema.ts).
 * Compiled validators are kept per schema object, weakly, so they go with the definition.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { isMapping } from './mapping.ts';

type Schema = Readonly<Record<string, unknown>>;

const compiled = new WeakMap<Schema, ValidateFunction | Error>();

/** The schema's validator, or why it does not compile (a bad keyword value, a $ref nothing answers). */
export function outputSchemaValidator(schema: Schema): ValidateFunction | Error {
  let known = compiled.get(schema);
  if (known === undefined) {
    try {
      known = new Ajv2020({ strict: false, allErrors: false }).compile(schema);
    } catch (error) {
      known = error instanceof Error ? error : new Error(String(error));
    }
    compiled.set(schema, known);
  }
  return known;
}

/** What is wrong with an `output_schema` value, in Dagu's words where Dagu has them. */
export function outputSchemaProblem(value: unknown): string | undefined {
  if (!isMapping(value)) return 'output_schema must be an inline JSON Schema object';
  const validator = outputSchemaValidator(value);
  if (validator instanceof Error) return `output_schema is not a valid JSON Schema: ${validator.message}`;
  return declaresObject(value, value, new Set()) ? undefined : 'output_schema must resolve to an object schema';
}

/**
 * Dagu's outputSchemaDeclaresObject: `type: object` (alone), a local $ref to such a schema, or
 * oneOf/anyOf/allOf whose every branch is one; a schema that says no type at all is taken too.
 */
function declaresObject(root: Schema, schema: unknown, seen: Set<unknown>): boolean {
  if (!isMapping(schema) || seen.has(schema)) return false;
  seen.add(schema);
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.length === 1 && type[0] === 'object')) return true;
  if (typeof schema.$ref === 'string') return declaresObject(root, localRef(root, schema.$ref), seen);
  for (const key of ['oneOf', 'anyOf', 'allOf']) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0)
      return branches.every((branch) => declaresObject(root, branch, new Set(seen)));
  }
  return type === undefined;
}

function localRef(root: Schema, ref: string): unknown {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] ?? ''];
  const name = (match[2] ?? '').replaceAll('~1', '/').replaceAll('~0', '~');
  return isMapping(defs) ? defs[name] : undefined;
}
