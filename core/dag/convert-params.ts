/**
 * 1.x's `params: {schema, values}` as Dagu 2.x's typed list, the reverse of
 * typedParamsAsSchema (dialect-params.ts): possible when the schema is exactly what such a list
 * compiles to (an object of typed properties with the list's keywords, no other properties)
 * and the values are the properties' defaults. Anything else has no faithful 2.x form.
 */
import { isMapping } from './mapping.ts';
type Mapping = Record<string, unknown>;

const TYPES = ['string', 'integer', 'number', 'boolean'];
/** JSON Schema keyword -> typed-param field. */
const FIELDS: Readonly<Record<string, string>> = {
  default: 'default',
  description: 'description',
  enum: 'enum',
  minimum: 'minimum',
  maximum: 'maximum',
  minLength: 'min_length',
  maxLength: 'max_length',
  pattern: 'pattern',
};

export type TypedParams = { readonly list: Mapping[] } | { readonly list?: undefined; path: string; reason: string };

function refused(path: string, reason: string): TypedParams {
  return { path, reason };
}

export function schemaAsTypedParams(params: Mapping): TypedParams {
  const { schema, values, ...rest } = params;
  const stray = Object.keys(rest)[0];
  if (stray !== undefined) return refused(stray, 'has no Dagu 2.x counterpart');
  if (!isMapping(schema) || typeof schema.properties !== 'object')
    return refused('schema', 'a schema given by reference or without properties has no Dagu 2.x typed-params form');
  const { type, properties, additionalProperties, required = [], ...others } = schema;
  const other = Object.keys(others)[0];
  if (type !== 'object' || additionalProperties !== false || !isMapping(properties) || other !== undefined)
    return refused(
      other === undefined ? 'schema' : `schema.${other}`,
      'Dagu 2.x typed params compile to an object schema of typed properties with additionalProperties: false, and nothing else',
    );
  if (
    !Array.isArray(required) ||
    !required.every((name) => typeof name === 'string' && Object.hasOwn(properties, name))
  )
    return refused('schema.required', 'must list declared properties to have a Dagu 2.x form');
  const list: Mapping[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const entry = typedParam(name, property, (required as string[]).includes(name));
    if (typeof entry === 'string') return refused(`schema.properties.${name}`, entry);
    list.push(entry);
  }
  const problem = valuesProblem(values, list);
  return problem === undefined ? { list } : refused('values', problem);
}

function typedParam(name: string, property: unknown, required: boolean): Mapping | string {
  if (!isMapping(property) || typeof property.type !== 'string' || !TYPES.includes(property.type))
    return `needs a type of ${TYPES.join(', ')} to be a Dagu 2.x typed param`;
  const entry: Mapping = { name, type: property.type };
  if (required) entry.required = true;
  for (const [keyword, item] of Object.entries(property)) {
    if (keyword === 'type') continue;
    const field = FIELDS[keyword];
    if (field === undefined) return `the keyword ${keyword} has no Dagu 2.x typed-param field`;
    entry[field] = item;
  }
  return entry;
}

/** The values must be the defaults, one `{name: default}` per property that has one, in order. */
function valuesProblem(values: unknown, list: readonly Mapping[]): string | undefined {
  const defaults = list.filter((entry) => Object.hasOwn(entry, 'default'));
  const given = values ?? [];
  const same =
    Array.isArray(given) &&
    given.length === defaults.length &&
    given.every((value, i) => {
      const entry = defaults[i];
      if (!isMapping(value) || entry === undefined) return false;
      const [key, ...others] = Object.keys(value);
      return (
        others.length === 0 &&
        key !== undefined &&
        key === entry.name &&
        JSON.stringify(value[key]) === JSON.stringify(entry.default)
      );
    });
  return same
    ? undefined
    : 'values other than the defaults have no Dagu 2.x typed-params form (a typed param writes one default)';
}
