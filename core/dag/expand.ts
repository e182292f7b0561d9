/**
 * Variable expansion as a pure function over given scopes (behaviour-notes 4.4). Nothing is
 * read from the process and nothing is executed: backtick commands are recognised and
 * returned for the runtime to run in a Pod, and substituted only when their results are given.
 */

export interface StepReference {
  /** Log file locations and exit code of a step, addressed by its id. */
  readonly stdout?: string;
  readonly stderr?: string;
  readonly exitCode?: number | string;
  /** Declared outputs (Dagu 2.x), for `${steps.<id>.outputs.<name>}`. */
  readonly outputs?: Readonly<Record<string, string>>;
}

export interface ExpandOptions {
  /** Variable scopes, highest precedence first (step env, outputs and params, secrets, DAG env). */
  readonly scopes: readonly Readonly<Record<string, string>>[];
  /** Steps by id, for `${id.stdout}`, `${id.stderr}`, `${id.exitCode}`. */
  readonly steps?: Readonly<Record<string, StepReference>>;
  /**
   * Apply the shell-style pass (`${V:-d}`, `${V:o:l}`, unset variables become empty). Off for
   * commands that a shell runs anyway: the shell then sees the unresolved `$VAR` itself.
   */
  readonly shell?: boolean;
  /** The environment consulted after the scopes in the shell-style pass. */
  readonly environment?: Readonly<Record<string, string>>;
  /** Results of backtick commands already run by the runtime, by command text. */
  readonly commandResults?: ReadonlyMap<string, string>;
}

export interface Expansion {
  readonly value: string;
  /** Backtick commands left in `value` that the runtime must run and substitute. */
  readonly commands: readonly string[];
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
const QUOTED_REF = new RegExp(`"\\$\\{(${NAME})((?:\\.|\\[)[^}]*)?\\}"`, 'g');
const BRACED_PATH_REF = new RegExp(`\\$\\{(${NAME})((?:\\.|\\[)[^}:]*)(?::([^}]*))?\\}`, 'g');
const BARE_PATH_REF = new RegExp(`\\$(${NAME})((?:\\.[A-Za-z0-9_]+|\\[\\d+\\])+)`, 'g');
const PLAIN_REF = new RegExp(`('?)\\$(?:\\{(${NAME}|\\d+)\\}|(${NAME}|\\d))('?)`, 'g');
const SHELL_REF = new RegExp(
  `('?)\\$\\{(${NAME}|\\d+)(?:(:?-)([^}]*)|:\\s*(-?\\d+)(?::\\s*(-?\\d+))?)?\\}('?)|('?)\\$(${NAME}|\\d)('?)`,
  'g',
);

export function expand(text: string, options: ExpandOptions): Expansion {
  if (!text.includes('$') && !text.includes('`')) return { value: text, commands: [] };
  let value = text.replace(QUOTED_REF, (match, name: string, path: string | undefined) => {
    // Dagu 2.x substitutes a declared output as it is, in quotes or not.
    const declared = name === 'steps' && path !== undefined ? declaredOutput(path, options) : undefined;
    if (declared !== undefined) return `"${declared}"`;
    const resolved = path === undefined ? lookup(options.scopes, name) : resolvePath(name, path, undefined, options);
    return resolved === undefined ? match : JSON.stringify(resolved);
  });
  value = value.replace(
    BRACED_PATH_REF,
    (match, name: string, path: string, slice: string | undefined) => resolvePath(name, path, slice, options) ?? match,
  );
  value = value.replace(
    BARE_PATH_REF,
    (match, name: string, path: string) => resolvePath(name, path, undefined, options) ?? match,
  );
  value = value.replace(
    PLAIN_REF,
    (match, open: string, braced: string | undefined, bare: string | undefined, close: string) => {
      if (open === "'" && close === "'") return match;
      const resolved = lookup(options.scopes, braced ?? bare ?? '');
      return resolved === undefined ? match : `${open}${resolved}${close}`;
    },
  );
  const substituted = substituteCommands(value, options.commandResults);
  value = substituted.value;
  if (options.shell === true) value = shellExpand(value, options);
  return { value, commands: substituted.commands };
}

function lookup(scopes: readonly Readonly<Record<string, string>>[], name: string): string | undefined {
  for (const scope of scopes) {
    if (Object.hasOwn(scope, name)) return scope[name];
  }
  return undefined;
}

/** `${id.stdout}` and friends for steps with that id, else a path into a JSON variable. */
function resolvePath(
  name: string,
  path: string,
  slice: string | undefined,
  options: ExpandOptions,
): string | undefined {
  const declared = name === 'steps' && slice === undefined ? declaredOutput(path, options) : undefined;
  if (declared !== undefined) return declared;
  const step = options.steps?.[name];
  const property = /^\.(stdout|stderr|exitCode|exit_code)$/.exec(path)?.[1];
  if (step !== undefined && property !== undefined) return stepProperty(step, property, slice);
  if (slice !== undefined) return undefined;
  const source = lookup(options.scopes, name) ?? options.environment?.[name];
  const data = source === undefined ? undefined : parseJson(source);
  const found = data === undefined ? undefined : walkPath(data.value, path);
  return found === undefined ? undefined : render(found.value);
}

/**
 * `${steps.<id>.outputs.<name>}`: a value the step with that id declared and published. Only
 * such a step can answer: otherwise the reference is a path into a variable named `steps`, as before.
 */
function declaredOutput(path: string, options: ExpandOptions): string | undefined {
  const match = /^\.([A-Za-z][A-Za-z0-9_]*)\.outputs\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(path);
  const outputs = match === null ? undefined : options.steps?.[match[1] ?? '']?.outputs;
  return outputs === undefined || !Object.hasOwn(outputs, match?.[2] ?? '') ? undefined : outputs[match?.[2] ?? ''];
}

function stepProperty(step: StepReference, property: string, slice: string | undefined): string | undefined {
  const raw = property === 'stdout' ? step.stdout : property === 'stderr' ? step.stderr : step.exitCode;
  if (raw === undefined || raw === '') return undefined;
  return slice === undefined ? String(raw) : sliceText(String(raw), slice);
}

/** `offset[:length]` over characters, both non-negative; anything else leaves the reference alone. */
function sliceText(value: string, spec: string): string | undefined {
  const match = /^(\d+)(?::(\d+))?$/.exec(spec);
  if (match === null) return undefined;
  const chars = Array.from(value);
  const start = Number(match[1]);
  const end = match[2] === undefined ? chars.length : start + Number(match[2]);
  return chars.slice(start, end).join('');
}

function parseJson(text: string): { value: unknown } | undefined {
  const first = text.trimStart().charAt(0);
  if (first !== '{' && first !== '[') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

const SEGMENT = /^(?:\.?\[(\d+)\]|\.?\["((?:[^"\\]|\\.)*)"\]|\.([A-Za-z0-9_-]+))/;

/** A jq-style path: `.a.b`, `.items[0]`, `.items.[1]`, `.["key with space"]`. */
export function walkPath(root: unknown, path: string): { value: unknown } | undefined {
  let current: unknown = root;
  let rest = path;
  while (rest !== '') {
    const match = SEGMENT.exec(rest);
    if (match === null) return undefined;
    rest = rest.slice(match[0].length);
    const index = match[1];
    if (index !== undefined) {
      if (!Array.isArray(current) || Number(index) >= current.length) return undefined;
      current = current[Number(index)] as unknown;
      continue;
    }
    const key = match[2] !== undefined ? (JSON.parse(`"${match[2]}"`) as string) : (match[3] ?? '');
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, key))
      return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return { value: current };
}

/** Strings as they are, everything else as compact JSON (like `jq -r`). */
function render(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Finds unescaped backtick spans; substitutes those with known results, reports the rest. */
function substituteCommands(text: string, results: ReadonlyMap<string, string> | undefined): Expansion {
  if (!text.includes('`')) return { value: text, commands: [] };
  const commands: string[] = [];
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (ch === '\\' && text.charAt(i + 1) === '`') {
      out += '\\`';
      i += 2;
      continue;
    }
    const end = ch === '`' ? text.indexOf('`', i + 1) : -1;
    if (end === -1 || end === i + 1) {
      // An empty pair `` is text, consumed whole so its second backtick opens nothing.
      const taken = end === -1 ? 1 : 2;
      out += text.slice(i, i + taken);
      i += taken;
      continue;
    }
    const command = text.slice(i + 1, end);
    const result = results?.get(command);
    if (result === undefined) commands.push(command);
    out += result ?? text.slice(i, end + 1);
    i = end + 1;
  }
  return { value: out, commands };
}

/** Shell-style expansion against the scopes, then the environment; unset becomes empty. */
function shellExpand(text: string, options: ExpandOptions): string {
  const get = (name: string): string | undefined => lookup(options.scopes, name) ?? options.environment?.[name];
  return text.replace(SHELL_REF, (match, ...groups: (string | undefined)[]) => {
    const [open = '', name, operator, fallback, offset, length, close = '', bareOpen = '', bareName, bareClose = ''] =
      groups;
    const quoted = bareName === undefined ? open === "'" && close === "'" : bareOpen === "'" && bareClose === "'";
    if (quoted) return match;
    if (bareName !== undefined) return `${bareOpen}${get(bareName) ?? ''}${bareClose}`;
    return `${open}${braced(get(name ?? ''), { operator, fallback, offset, length })}${close}`;
  });
}

interface BracedForm {
  readonly operator: string | undefined;
  readonly fallback: string | undefined;
  readonly offset: string | undefined;
  readonly length: string | undefined;
}

/** `${V:-d}` (unset or empty), `${V-d}` (unset), `${V:o}`, `${V:o:l}`, or plain `${V}`. */
function braced(value: string | undefined, form: BracedForm): string {
  if (form.operator !== undefined) {
    const useFallback = form.operator === ':-' ? value === undefined || value === '' : value === undefined;
    return useFallback ? (form.fallback ?? '') : (value ?? '');
  }
  if (form.offset !== undefined)
    return substring(value ?? '', Number(form.offset), form.length === undefined ? undefined : Number(form.length));
  return value ?? '';
}

/** Bash `${V:offset:length}`: a negative offset counts from the end, a negative length stops before the end. */
function substring(value: string, offset: number, length: number | undefined): string {
  const chars = Array.from(value);
  const start = offset < 0 ? Math.max(0, chars.length + offset) : offset;
  if (start > chars.length) return '';
  if (length === undefined) return chars.slice(start).join('');
  const end = length < 0 ? chars.length + length : start + length;
  return end <= start ? '' : chars.slice(start, end).join('');
}

/** True when a text holds backtick command substitution that only the runtime can resolve. */
export function hasCommandSubstitution(text: string): boolean {
  return substituteCommands(text, undefined).commands.length > 0;
}
