/**
 * Dagu 2.x's named values in a 2.x document: `consts` (literal values, fixed when the file is
 * loaded) and the scoped references `${consts.x}`, `${params.x}` and `${env.X}`. Constants are
 * substituted here, as Dagu resolves them at load time; `${params.x}` and `${env.X}` become the
 * `${x}` and `${X}` that Kubedag substitutes per run (parameters and variables are one
 * environment there). What stays, `${steps.<id>.outputs.x}` and names that cannot be a
 * variable, is refused by dialect.ts.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Literal = string | number | boolean;

const CONST_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const SCOPED = /\$\{(consts|params|env)\.([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** `consts: [{NAME: value}, ...]`: each a string, number or boolean; strings may use earlier ones. */
export function readConsts(value: unknown, errors: DagIssue[]): Map<string, Literal> {
  const consts = new Map<string, Literal>();
  if (value === undefined) return consts;
  if (!Array.isArray(value)) {
    errors.push(issue('consts', 'must be a list of single-entry mappings (NAME: value)'));
    return consts;
  }
  for (const [i, entry] of value.entries()) {
    const at = childPath('consts', i);
    const pairs = isMapping(entry) ? Object.entries(entry) : [];
    const [pair] = pairs;
    if (pair === undefined || pairs.length !== 1) {
      errors.push(issue(at, 'must be a mapping of exactly one name to its value'));
      continue;
    }
    const [name, item] = pair;
    if (!CONST_NAME.test(name))
      errors.push(issue(childPath(at, name), 'is not a valid constant name (a letter, then letters, digits and _)'));
    else if (consts.has(name)) errors.push(issue(childPath(at, name), `constant "${name}" is defined more than once`));
    else if (typeof item === 'string')
      consts.set(name, substituteConsts(item, consts, childPath(at, name), errors, true) as Literal);
    else if ((typeof item === 'number' && Number.isFinite(item)) || typeof item === 'boolean') consts.set(name, item);
    else errors.push(issue(childPath(at, name), 'must be a literal string, number or boolean'));
  }
  return consts;
}

/** A string with its `${consts.x}` substituted; a string that is one reference takes the constant's type. */
function substituteConsts(
  text: string,
  consts: ReadonlyMap<string, Literal>,
  path: string,
  errors: DagIssue[],
  asText = false,
): unknown {
  const whole = /^\$\{consts\.([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(text)?.[1];
  if (whole !== undefined && consts.has(whole) && !asText) return consts.get(whole);
  return text.replace(SCOPED, (match, scope: string, name: string) => {
    if (scope !== 'consts') return match;
    const value = consts.get(name);
    if (value === undefined)
      errors.push(
        issue(
          path,
          `unknown constant consts.${name}${consts.size === 0 ? ' (the file defines no consts)' : ` (defined: ${[...consts.keys()].join(', ')})`}`,
        ),
      );
    return value === undefined ? match : String(value);
  });
}

/**
 * Every string value of a document (keys stay as written) with constants substituted and
 * `${params.x}`/`${env.X}` made plain variable references.
 */
export function withValues(
  value: unknown,
  consts: ReadonlyMap<string, Literal>,
  path: string,
  errors: DagIssue[],
): unknown {
  if (typeof value === 'string') {
    const substituted = substituteConsts(value, consts, path, errors);
    return typeof substituted === 'string'
      ? substituted.replace(SCOPED, (match, scope: string, name: string) =>
          scope === 'consts' ? match : `\${${name}}`,
        )
      : substituted;
  }
  if (Array.isArray(value))
    return value.map((item: unknown, i) => withValues(item, consts, childPath(path, i), errors));
  if (!isMapping(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, withValues(item, consts, childPath(path, key), errors)]),
  );
}
