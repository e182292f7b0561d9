/**
 * Executes a parsed template (parse.ts) over plain data as Go's text/template does with
 * `missingkey=error`: a missing map key fails, `nil` prints `<no value>`, truth is Go's (false,
 * 0, nil and empty strings, lists and maps are false), values print as fmt's %v. The functions
 * are Go's built-ins and the slim-sprig ones Dagu v2.15.1 gives with its argument order
 * (`join "," .list`, `default "x" .v`, `split "," .s`). Pure.
 */
import { TemplateError, type Node, type Operand, type Pipeline } from './parse.ts';

type Scope = { readonly dot: unknown; readonly root: unknown; readonly vars: Readonly<Record<string, unknown>> };

const isMap = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** fmt's %v of a JSON-like value. */
export function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<no value>';
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (isMap(value))
    return `map[${Object.keys(value)
      .sort()
      .map((key) => `${key}:${goPrint(value[key])}`)
      .join(' ')}]`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function truth(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === '') return false;
  if (Array.isArray(value)) return value.length > 0;
  if (isMap(value)) return Object.keys(value).length > 0;
  return true;
}

function lengthOf(name: string, value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (isMap(value)) return Object.keys(value).length;
  if (value === null || value === undefined) return 0;
  throw new TemplateError(`${name}: unsupported type ${typeof value}`);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  throw new TemplateError('incompatible types for comparison');
}

/** printf with the verbs a template uses: %s %v %d %f %q %t %%. */
function printf(format: unknown, ...args: unknown[]): string {
  let i = 0;
  return String(format).replace(/%(\.\d+)?([svdfqt%])/g, (_all, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    const arg = args[i++];
    if (verb === 'q') return JSON.stringify(goPrint(arg));
    if (verb === 'f') return Number(arg).toFixed(precision === undefined ? 6 : Number(precision.slice(1)));
    if (verb === 'd') return String(Math.trunc(Number(arg)));
    return goPrint(arg);
  });
}

const FUNCTIONS: Readonly<Record<string, (...args: unknown[]) => unknown>> = {
  not: (a) => !truth(a),
  eq: (a, ...rest) => rest.some((b) => a === b),
  ne: (a, b) => a !== b,
  lt: (a, b) => compare(a, b) < 0,
  le: (a, b) => compare(a, b) <= 0,
  gt: (a, b) => compare(a, b) > 0,
  ge: (a, b) => compare(a, b) >= 0,
  len: (a) => lengthOf('len', a),
  index: (value, ...keys) =>
    keys.reduce((item, key) => {
      if (Array.isArray(item) && typeof key === 'number') {
        if (key < 0 || key >= item.length) throw new TemplateError(`index out of range: ${String(key)}`);
        return item[key] as unknown;
      }
      if (isMap(item) && typeof key === 'string') return item[key];
      throw new TemplateError(`can't index item of type ${typeof item}`);
    }, value),
  print: (...args) => args.map(goPrint).join(''),
  println: (...args) => `${args.map(goPrint).join(' ')}\n`,
  printf,
  upper: (s) => String(s).toUpperCase(),
  lower: (s) => String(s).toLowerCase(),
  trim: (s) => String(s).trim(),
  default: (fallback, value) => (truth(value) ? value : fallback),
  join: (sep, list) =>
    list === null || list === undefined
      ? ''
      : Array.isArray(list)
        ? list.map(goPrint).join(String(sep))
        : (() => {
            throw new TemplateError('join: unsupported type');
          })(),
  split: (sep, s) => String(s).split(String(sep)),
  count: (v) => lengthOf('count', v),
  add: (b, a) => Number(a) + Number(b),
  empty: (v) => !truth(v),
  contains: (needle, s) => String(s).includes(String(needle)),
  hasPrefix: (s, prefix) => String(s).startsWith(String(prefix)),
  hasSuffix: (s, suffix) => String(s).endsWith(String(suffix)),
  replace: (from, to, s) => String(s).replaceAll(String(from), String(to)),
  quote: (...args) => args.map((a) => JSON.stringify(goPrint(a))).join(' '),
  toJson: (v) => JSON.stringify(v ?? null),
};

function field(scope: Scope, operand: Extract<Operand, { kind: 'field' }>): unknown {
  let value: unknown;
  if (operand.root === 'dot') value = scope.dot;
  else if (operand.root === 'root') value = scope.root;
  else if (Object.hasOwn(scope.vars, operand.root)) value = scope.vars[operand.root];
  else throw new TemplateError(`undefined variable "${operand.root}"`);
  for (const name of operand.path) {
    if (!isMap(value)) throw new TemplateError(`can't evaluate field ${name} in type ${goPrint(value)}`);
    if (!Object.hasOwn(value, name)) throw new TemplateError(`map has no entry for key "${name}"`);
    value = value[name];
  }
  return value;
}

function evaluate(scope: Scope, operand: Operand, piped: unknown[]): unknown {
  if (operand.kind === 'literal') return operand.value;
  if (operand.kind === 'field') return field(scope, operand);
  if (operand.kind === 'pipe') return run(scope, operand.pipe);
  const args = [...operand.args.map((arg) => evaluate(scope, arg, [])), ...piped];
  // and/or return the deciding argument, as Go's do.
  if (operand.name === 'and') return args.find((a) => !truth(a)) ?? args[args.length - 1];
  if (operand.name === 'or') return args.find(truth) ?? args[args.length - 1];
  const fn = FUNCTIONS[operand.name];
  if (fn === undefined) throw new TemplateError(`function "${operand.name}" not defined`);
  return fn(...args);
}

function run(scope: Scope, pipe: Pipeline): unknown {
  let value: unknown;
  pipe.forEach((command, i) => {
    if (i > 0 && command.kind !== 'call') throw new TemplateError('non-function in pipeline');
    value = evaluate(scope, command, i === 0 ? [] : [value]);
  });
  return value;
}

type RangeNode = Extract<Node, { kind: 'range' }>;

/** A list by index, a map by its sorted keys (as Go ranges over a map); nil or empty: the else branch. */
function rangeOver(scope: Scope, node: RangeNode, out: string[]): void {
  const value = run(scope, node.pipe);
  let items: [unknown, unknown][];
  if (Array.isArray(value)) items = value.map((item, i) => [i, item]);
  else if (isMap(value))
    items = Object.keys(value)
      .sort()
      .map((key) => [key, value[key]]);
  else if (!truth(value)) items = [];
  else throw new TemplateError(`range can't iterate over ${goPrint(value)}`);
  if (items.length === 0) walk(scope, node.otherwise, out);
  const [first, second] = node.vars;
  for (const [key, item] of items) {
    const vars =
      first === undefined
        ? scope.vars
        : second === undefined
          ? { ...scope.vars, [first]: item }
          : { ...scope.vars, [first]: key, [second]: item };
    walk({ ...scope, dot: item, vars }, node.body, out);
  }
}

function walk(scope: Scope, nodes: readonly Node[], out: string[]): void {
  for (const node of nodes) {
    if (node.kind === 'text') out.push(node.text);
    else if (node.kind === 'print') out.push(goPrint(run(scope, node.pipe)));
    else if (node.kind === 'range') rangeOver(scope, node, out);
    else {
      const value = run(scope, node.pipe);
      const inner = node.kind === 'with' && truth(value) ? { ...scope, dot: value } : scope;
      walk(inner, truth(value) ? node.then : node.otherwise, out);
    }
  }
}

export function renderTemplate(nodes: readonly Node[], data: unknown): string {
  const out: string[] = [];
  walk({ dot: data, root: data, vars: {} }, nodes, out);
  return out.join('');
}
