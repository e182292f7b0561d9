/**
 * Dagu 2.x's typed parameters, `params: [{name, type, default, ...}]`, as the 1.x form that
 * carries a JSON Schema: `params: {schema, values}`. Dagu compiles such a list into the same
 * kind of schema (internal/spec/dparams_inline.go: an object of the declared properties, no
 * others); Kubedag's runtime then validates and defaults the values a run is given with it.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

const TYPES = ['string', 'integer', 'number', 'boolean'];
/** Typed-param fields -> their JSON Schema keyword (`name`, `type`, `required` handled apart). */
const KEYWORDS: Readonly<Record<string, string>> = {
  default: 'default',
  description: 'description',
  enum: 'enum',
  minimum: 'minimum',
  maximum: 'maximum',
  min_length: 'minLength',
  max_length: 'maxLength',
  pattern: 'pattern',
};

// Whether `params` is the typed list: decided with the dialect (dialect-decide.ts).
export { isTypedParams } from './dialect-decide.ts';

/** The 1.x `{schema, values}` of a typed list; entries that cannot be read are errors. */
export function typedParamsAsSchema(params: readonly unknown[], errors: DagIssue[]): Mapping {
  const properties: Mapping = {};
  const required: string[] = [];
  const values: Mapping[] = [];
  for (const [i, entry] of params.entries()) {
    const at = childPath('params', i);
    if (!isMapping(entry) || typeof entry.name !== 'string' || entry.name.trim() === '') {
      errors.push(
        issue(at, 'must be a mapping with a name (a list of typed params writes each as {name, type, default, ...})'),
      );
      continue;
    }
    const name = entry.name.trim();
    if (Object.hasOwn(properties, name))
      errors.push(issue(childPath(at, 'name'), `parameter "${name}" is declared more than once`));
    const property = propertyOf(entry, at, errors);
    properties[name] = property;
    if (entry.required === true) required.push(name);
    // An eval is the value a run starts with unless it is given one; evaluated in the prepare
    // Pod, which falls back to the schema's `default` when the evaluation fails, as Dagu does.
    const evaluated = evalOf(entry, at, errors);
    if (evaluated !== undefined) values.push({ [name]: evaluated });
    else if (Object.hasOwn(entry, 'default')) values.push({ [name]: entry.default });
  }
  const schema = {
    type: 'object',
    properties,
    additionalProperties: false,
    ...(required.length === 0 ? {} : { required }),
  };
  return { schema, values };
}

/** A typed param's `eval`, in Dagu's words when it is not a non-empty string. */
function evalOf(entry: Mapping, at: string, errors: DagIssue[]): string | undefined {
  if (!Object.hasOwn(entry, 'eval')) return undefined;
  const name = String(entry.name).trim();
  if (typeof entry.eval !== 'string')
    errors.push(issue(childPath(at, 'eval'), `parameter "${name}" eval must be a string`));
  else if (entry.eval.trim() === '')
    errors.push(issue(childPath(at, 'eval'), `parameter "${name}" eval must not be empty`));
  else return entry.eval.trim();
  return undefined;
}

function propertyOf(entry: Mapping, at: string, errors: DagIssue[]): Mapping {
  const property: Mapping = {};
  const type = entry.type ?? 'string';
  if (typeof type !== 'string' || !TYPES.includes(type.trim() === '' ? 'string' : type.trim()))
    errors.push(issue(childPath(at, 'type'), `must be one of ${TYPES.join(', ')}`));
  else property.type = type.trim() === '' ? 'string' : type.trim();
  for (const [key, item] of Object.entries(entry)) {
    if (key === 'name' || key === 'type') continue;
    if (key === 'required') {
      if (typeof item !== 'boolean') errors.push(issue(childPath(at, key), 'must be true or false'));
    } else if (key === 'eval') continue;
    else if (KEYWORDS[key] !== undefined) property[KEYWORDS[key]] = item;
    else
      errors.push(
        issue(
          childPath(at, key),
          `is not a typed-param field (known: name, type, required, eval, ${Object.keys(KEYWORDS).join(', ')})`,
        ),
      );
  }
  return property;
}

/**
 * Dagu's rule (internal/spec/schema.go `isSchemaBackedParamsMap`) for when `{schema, values}`
 * is a schema and not two parameters called "schema" and "values": only those keys, and an
 * object schema, or a boolean or string one with values, or a string that looks like a path or URL.
 */
function isSchemaBacked(params: Mapping): boolean {
  if (!Object.hasOwn(params, 'schema') || Object.keys(params).some((key) => key !== 'schema' && key !== 'values'))
    return false;
  const schema = params.schema;
  if (isMapping(schema)) return true;
  if (typeof schema === 'boolean') return Object.hasOwn(params, 'values');
  if (typeof schema !== 'string') return false;
  return Object.hasOwn(params, 'values') || /:\/\/|[/\\.]/.test(schema.trim());
}

/** Dagu's inline form: the params mapping is itself the schema, `{type: object, properties: {...}}`. */
function isInlineSchema(params: Mapping): boolean {
  return typeof params.type === 'string' && params.type.trim() === 'object' && Object.hasOwn(params, 'properties');
}

/** Why a schema that names another document is refused: nothing outside the DAG resource is read. */
const NO_REFERENCES =
  'a DAG is one Kubernetes resource, and the operator reads no files or URLs for it; write the schema inline';

/**
 * A `$ref` that leaves the schema (a file or URL, not `#...`) anywhere in it, as an error: a
 * referenced document would have to be read by the operator, from a place the cluster does not have.
 */
function externalRefs(schema: unknown, at: string, errors: DagIssue[]): void {
  if (Array.isArray(schema)) for (const [i, item] of schema.entries()) externalRefs(item, childPath(at, i), errors);
  if (!isMapping(schema)) return;
  for (const [key, item] of Object.entries(schema)) {
    if (key === '$ref' && typeof item === 'string' && !item.startsWith('#'))
      errors.push(issue(childPath(at, key), `cannot refer to "${item}": ${NO_REFERENCES} (under $defs)`));
    else externalRefs(item, childPath(at, key), errors);
  }
}

/**
 * Dagu 2.x's params as a JSON Schema, in the 1.x `{schema, values}` form the loader checks and
 * the run start applies: the inline form (the mapping is the schema, its properties' defaults the
 * values, as Dagu's `explicitInlineSchemaDefaults` reads them) and `{schema, values}` with an
 * inline or boolean schema. A schema file or URL is refused. A mapping that is neither is
 * Dagu's legacy mapping of names to values, returned as the 1.x list so that a parameter called
 * "schema" stays one. `undefined` when the params are not a mapping.
 */
export function schemaParamsAsOneX(params: unknown, errors: DagIssue[]): unknown {
  if (!isMapping(params)) return params;
  if (isInlineSchema(params)) {
    if (!isMapping(params.properties)) {
      errors.push(
        issue('params.properties', 'inline JSON Schema properties must be an object keyed by parameter name'),
      );
      return undefined;
    }
    // Dagu drops readOnly at the top of an inline schema (a UI hint, not a constraint).
    const { readOnly: _readOnly, readonly: _readonly, ...schema } = params;
    externalRefs(schema, 'params', errors);
    return { schema };
  }
  if (!isSchemaBacked(params))
    return Object.hasOwn(params, 'schema')
      ? Object.keys(params)
          .sort()
          .map((name) => ({ [name]: params[name] }))
      : params;
  const schema = params.schema;
  const values = Object.hasOwn(params, 'values') ? { values: params.values } : {};
  if (typeof schema === 'string') {
    errors.push(issue('params.schema', `cannot read the schema "${schema.trim()}": ${NO_REFERENCES}`));
    return undefined;
  }
  if (typeof schema === 'boolean') return { schema: schema ? {} : { not: {} }, ...values };
  externalRefs(schema, 'params.schema', errors);
  return { schema, ...values };
}
