/**
 * Dagu 2.x's typed parameters, `params: [{name, type, default, ...}]`, as the 1.x form that
 * carries a JSON Schema: `params: {schema, values}`. Dagu compiles such a list into the same
 * kind of schema (internal/spec/dparams_inline.go: an object of the declared properties, no
 * others); Kubedag's runtime then validates and defaults the values a run is given with it.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { refusal } from './dialect-refusal.ts';

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

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

/** Whether `params` is the typed list (any entry a mapping with `name`). */
export function isTypedParams(params: unknown): params is unknown[] {
  return Array.isArray(params) && params.some((entry) => isMapping(entry) && Object.hasOwn(entry, 'name'));
}

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
    if (Object.hasOwn(entry, 'default')) values.push({ [name]: entry.default });
  }
  const schema = {
    type: 'object',
    properties,
    additionalProperties: false,
    ...(required.length === 0 ? {} : { required }),
  };
  return { schema, values };
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
    } else if (key === 'eval')
      errors.push(refusal(childPath(at, key), 'typed params eval (a default computed by a command)'));
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
