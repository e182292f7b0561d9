/**
 * Structural validation of one DAG document (or of settings whose shape depends on another
 * key) against the JSON Schema of schema.ts: key spellings are made canonical first (Dagu
 * matches keys case-insensitively; kubernetes keys also come in snake_case), then ajv checks
 * types, and its errors are turned into one precise message per problem.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { closest } from 'fastest-levenshtein';
import { childPath, issue, pointerToPath, type DagIssue } from './issues.ts';
import { aliasTarget } from './kube-object.ts';
import { oneXJsonSchema, type DagFile } from './schema.ts';
import { describeValue, jsonType, nearKey, SHAPE_MESSAGES, type JsonType } from './wording.ts';

type Schema = Record<string, unknown>;

interface CompiledSchema {
  readonly root: Schema;
  readonly validate: ValidateFunction;
  /** Every schema node owned by a node, without crossing `$ref`, to attribute ajv errors. */
  readonly owned: WeakMap<object, Set<object>>;
}

function compile(root: Schema): CompiledSchema {
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
  return { root, validate: ajv.compile(root), owned: new WeakMap() };
}

export interface StructureResult<T = DagFile> {
  /** The value with canonical key spellings; only meaningful when `errors` is empty. */
  readonly value: T;
  /** Paths relative to the value checked. */
  readonly errors: DagIssue[];
}

/**
 * A shape check against one JSON Schema, compiled on first use: the schema is a constant, so
 * the memo is pure. Used for whole documents and for settings whose shape depends on another
 * key (the `with:` of a `type: kubernetes` step).
 */
export function shapeChecker(schemaOf: () => Schema): (value: unknown) => StructureResult<unknown> {
  let compiled: CompiledSchema | undefined;
  return (value) => {
    compiled ??= compile(schemaOf());
    const errors: DagIssue[] = [];
    const canonical = canonicalKeys(value, compiled.root, compiled.root, '', errors);
    if (!compiled.validate(canonical)) errors.push(...translate(compiled.validate.errors ?? [], compiled));
    return { value: canonical, errors: dedupe(errors) };
  };
}

// The 1.x shape: a 2.x document was rewritten into it before it is checked (dialect.ts).
const checkDocument = shapeChecker(oneXJsonSchema);

/** Checks one DAG document's shape. Never throws on any input. */
export function checkStructure(document: unknown): StructureResult {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    return { value: {}, errors: [issue('', `a DAG document must be a mapping, not ${describeValue(document)}`)] };
  }
  return checkDocument(document) as StructureResult;
}

// ---------------------------------------------------------------------------------------------
// Canonical key spelling

function resolve(schema: Schema, root: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/definitions/', '');
  return (root.definitions as Record<string, Schema> | undefined)?.[name] ?? {};
}

/**
 * Rewrites keys of known mappings to their canonical spelling (`Steps` -> `steps`, and the
 * snake_case twins of kube-object.ts: `image_pull_policy` -> `imagePullPolicy`) and drops
 * keys whose value is null (YAML `key:` with nothing after it means "not set"). User data
 * such as env names, labels and executor config keep their keys untouched.
 */
function canonicalKeys(value: unknown, node: Schema, root: Schema, path: string, errors: DagIssue[]): unknown {
  const schema = resolve(node, root);
  if (Array.isArray(schema.anyOf)) {
    const branch = chooseBranch(schema.anyOf as Schema[], value, root);
    return branch === undefined ? value : canonicalKeys(value, branch, root, path, errors);
  }
  if (Array.isArray(value)) {
    const items = schema.items as Schema | undefined;
    return items === undefined
      ? value
      : value.map((item, i) => canonicalKeys(item, items, root, childPath(path, i), errors));
  }
  if (value === null || typeof value !== 'object') return value;
  return canonicalMapping(value as Record<string, unknown>, schema, root, path, errors);
}

/** Each schema node's keys by lower case; the schema is a constant, so the memo is pure. */
const lowerCaseKeys = new WeakMap<Schema, ReadonlyMap<string, string>>();

function keysByLowerCase(schema: Schema, properties: Record<string, Schema>): ReadonlyMap<string, string> {
  let keys = lowerCaseKeys.get(schema);
  if (keys === undefined) {
    keys = new Map(Object.keys(properties).map((key) => [key.toLowerCase(), key]));
    lowerCaseKeys.set(schema, keys);
  }
  return keys;
}

function canonicalMapping(
  value: Record<string, unknown>,
  schema: Schema,
  root: Schema,
  path: string,
  errors: DagIssue[],
): unknown {
  const properties = schema.properties as Record<string, Schema> | undefined;
  const patterns = schema.patternProperties as Record<string, Schema> | undefined;
  const valueSchema = patterns === undefined ? undefined : Object.values(patterns)[0];
  const byLowerCase = keysByLowerCase(schema, properties ?? {});
  const out: Record<string, unknown> = {};
  const spelledAs = new Map<string, string>();
  for (const [key, item] of Object.entries(value)) {
    const spelled = properties === undefined ? key : (byLowerCase.get(key.toLowerCase()) ?? key);
    const canonical = aliasTarget(properties?.[spelled]) ?? spelled;
    const sub = properties?.[canonical] ?? valueSchema;
    if (properties !== undefined && item === null && sub !== undefined) continue;
    const earlier = spelledAs.get(canonical);
    if (earlier !== undefined) {
      errors.push(issue(childPath(path, key), `duplicate key: "${earlier}" and "${key}" are the same key`));
      continue;
    }
    spelledAs.set(canonical, key);
    out[canonical] = sub === undefined ? item : canonicalKeys(item, sub, root, childPath(path, canonical), errors);
  }
  return out;
}

/** JSON types a schema can accept at all; an empty set means any. */
function acceptedTypes(node: Schema, root: Schema): Set<JsonType> {
  const schema = resolve(node, root);
  if (Array.isArray(schema.anyOf)) {
    const all = (schema.anyOf as Schema[]).map((branch) => acceptedTypes(branch, root));
    return all.some((set) => set.size === 0) ? new Set() : new Set(all.flatMap((set) => [...set]));
  }
  if (Array.isArray(schema.enum)) return new Set((schema.enum as unknown[]).map(jsonType));
  const type = schema.type;
  if (typeof type !== 'string') return new Set();
  return type === 'number' ? new Set(['number', 'integer']) : new Set([type as JsonType]);
}

/**
 * The branch of an `anyOf` that a value was meant for: the first whose type fits, and among
 * mappings the first whose required keys are all present (so `{schema: ...}` params pick the
 * schema form and any other mapping the plain one).
 */
function chooseBranch(branches: Schema[], value: unknown, root: Schema): Schema | undefined {
  const type = jsonType(value);
  const fitting = branches.filter((branch) => {
    const types = acceptedTypes(branch, root);
    return types.size === 0 || types.has(type);
  });
  if (type !== 'object' || fitting.length < 2) return fitting[0];
  const keys = new Set(Object.keys(value as object).map((key) => key.toLowerCase()));
  return (
    fitting.find((branch) => {
      const required = resolve(branch, root).required;
      return !Array.isArray(required) || required.every((key: string) => keys.has(key.toLowerCase()));
    }) ?? fitting[0]
  );
}

// ---------------------------------------------------------------------------------------------
// ajv errors -> messages

function ownedNodes(node: object, cache: WeakMap<object, Set<object>>): Set<object> {
  const hit = cache.get(node);
  if (hit !== undefined) return hit;
  const owned = new Set<object>();
  const stack: unknown[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next === null || typeof next !== 'object' || owned.has(next)) continue;
    owned.add(next);
    for (const child of Object.values(next)) stack.push(child);
  }
  cache.set(node, owned);
  return owned;
}

/**
 * ajv reports every failing branch of an `anyOf`. A user meant one of them: keep the errors of
 * the branch the value's type points at, drop the others, and when no branch fits keep one
 * "must be a ... or a ..." message instead.
 */
function translate(errors: ErrorObject[], schema: CompiledSchema): DagIssue[] {
  const dropped = new Set<ErrorObject>();
  for (const error of errors) {
    if (error.keyword !== 'anyOf') continue;
    const branches = error.schema as Schema[];
    const chosen = chooseBranch(branches, error.data, schema.root);
    if (chosen !== undefined) dropped.add(error);
    for (const branch of branches) {
      if (branch !== chosen) dropBranchErrors(branch, error.instancePath, errors, schema, dropped);
    }
  }
  return errors.filter((error) => !dropped.has(error)).map((error) => message(error, schema.root));
}

/**
 * A branch whose type did not fit reports only at the anyOf's own path, where its `$ref` may
 * point at a shared definition; deeper errors can only come from a branch of the same type,
 * and those never cross a `$ref`, so ownership without following refs identifies them.
 */
function dropBranchErrors(
  branch: Schema,
  at: string,
  errors: ErrorObject[],
  schema: CompiledSchema,
  dropped: Set<ErrorObject>,
): void {
  const owned = ownedNodes(branch, schema.owned);
  const target = resolve(branch, schema.root);
  for (const other of errors) {
    const parent = other.parentSchema;
    // One schema node serves every list item, so ownership alone would reach into siblings.
    const within = other.instancePath === at || other.instancePath.startsWith(`${at}/`);
    if (parent === undefined || !within) continue;
    if (owned.has(parent) || (other.instancePath === at && parent === target)) dropped.add(other);
  }
}

function message(error: ErrorObject, root: Schema): DagIssue {
  const path = pointerToPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return unknownKey(path, String(params.additionalProperty), error.parentSchema);
    case 'required':
      return issue(path, SHAPE_MESSAGES.required(String(params.missingProperty)));
    case 'type':
      return issue(path, SHAPE_MESSAGES.type(String(params.type).split(','), error.data));
    case 'enum':
      return issue(path, SHAPE_MESSAGES.enum(params.allowedValues as unknown[], error.data));
    case 'anyOf':
      return issue(path, SHAPE_MESSAGES.type([...acceptedTypes({ anyOf: error.schema }, root)], error.data));
    case 'minimum':
      return issue(path, SHAPE_MESSAGES.minimum(params.limit));
    case 'maximum':
      return issue(path, SHAPE_MESSAGES.maximum(params.limit));
    default:
      return issue(path, error.message ?? 'is invalid');
  }
}

/** Suggests the nearest spelling (a snake_case twin too); lists only canonical keys. */
function unknownKey(path: string, key: string, parent: unknown): DagIssue {
  const properties = ((parent as Schema | undefined)?.properties ?? {}) as Record<string, unknown>;
  const spellings = Object.keys(properties);
  const known = spellings.filter((k) => aliasTarget(properties[k]) === undefined);
  const at = childPath(path, key);
  const guess =
    spellings.length === 0
      ? ''
      : closest(
          key.toLowerCase(),
          spellings.map((k) => k.toLowerCase()),
        );
  const suggestion = spellings.find((k) => k.toLowerCase() === guess);
  const near = suggestion !== undefined && nearKey(key, suggestion);
  return issue(at, SHAPE_MESSAGES.unknownKey(near ? suggestion : undefined, known));
}

function dedupe(errors: DagIssue[]): DagIssue[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}\u0000${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
