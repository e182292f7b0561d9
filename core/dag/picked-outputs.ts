/**
 * Dagu 2.x's picked outputs: named values taken out of a step's stdout (or stderr) once it
 * succeeded, or given as literals. Two spellings (v2.15.1 `internal/spec/step.go`
 * parseOutputConfig and parseStdoutOutputsConfig): the object form of `output:`
 * (`{NAME: {from, decode, select} | {value} | literal}`) and `stdout: {outputs: ...}` (one value
 * of the whole stream, or the keys of its decoded object, or `fields`). Both become the model's
 * PickedOutputs here, with Dagu's checks and words; the operator computes the values from the
 * stdout it already reads, and from the files the step's runner sends back for `from: file`
 * (operator/run/decide/picked-values.ts). Pure.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { refusal } from './dialect-refusal.ts';
import { isMapping } from './mapping.ts';

export type PickDecode = 'text' | 'json' | 'yaml';

/** One named value: a literal, or a stream decoded and (for json/yaml) selected from. */
export type PickedEntry =
  | { readonly name: string; readonly value: unknown }
  | {
      readonly name: string;
      readonly from: 'stdout' | 'stderr';
      readonly decode: PickDecode;
      /** A jq path (`.a.b[0]`), as segments. */
      readonly select?: readonly (string | number)[];
    }
  | {
      readonly name: string;
      readonly from: 'file';
      /** As written: the step's variables are expanded in its Pod, relative to its working directory. */
      readonly path: string;
      readonly decode: PickDecode;
      readonly select?: readonly (string | number)[];
    };

export type PickedOutputs =
  /** Named entries: object-form `output:`, or `stdout.outputs.fields`. */
  | { readonly entries: readonly PickedEntry[] }
  /** The whole stdout: as one value named `field`, or, without `field`, the keys of its decoded object. */
  | { readonly field?: string; readonly decode: PickDecode; readonly select?: readonly (string | number)[] };

type Mapping = Record<string, unknown>;

/** Records a problem and answers `none` (undefined unless given): the part is not read. */
function failed<T = undefined>(errors: DagIssue[], problem: DagIssue, none?: T): T {
  errors.push(problem);
  return none as T;
}

const RESERVED = ['value', 'from', 'path', 'decode', 'select'];
const DECODES = ['text', 'json', 'yaml'];
const DECODE_WORDS = 'decode must be one of "text", "json", or "yaml"';
const SELECT_NEEDS = 'select requires decode to be "json" or "yaml"';

/**
 * A select path as segments, or undefined when it is more than a path. Dagu runs `select` as a
 * jq program (gojq); Kubedag evaluates it in the operator, which runs no user program, so only
 * jq's paths are taken: `.`, `.name`, `."quoted"`, `.["quoted"]`, `.[N]` (N may be negative), chained.
 */
export function selectPath(select: string): (string | number)[] | undefined {
  const text = select.trim();
  if (text === '.') return [];
  const segments: (string | number)[] = [];
  const step = /\.?\[(-?\d+)\]|\.?\[("(?:[^"\\]|\\.)*")\]|\.([A-Za-z_][A-Za-z0-9_]*)|\.("(?:[^"\\]|\\.)*")/y;
  let at = 0;
  while (at < text.length) {
    step.lastIndex = at;
    const m = step.exec(text);
    // A path starts with a dot: `[0]` alone is not one in jq.
    if (m === null || (at === 0 && !text.startsWith('.'))) return undefined;
    if (m[1] !== undefined) segments.push(Number(m[1]));
    else segments.push(m[3] ?? (JSON.parse(m[2] ?? m[4] ?? '""') as string));
    at = step.lastIndex;
  }
  return segments.length === 0 ? undefined : segments;
}

/** `decode` and `select` of an entry or of `stdout.outputs`, with Dagu's defaults and checks. */
function decodeAndSelect(
  raw: Mapping,
  path: string,
  errors: DagIssue[],
): { decode: PickDecode; select?: (string | number)[] } | undefined {
  for (const key of ['decode', 'select'])
    if (raw[key] !== undefined && typeof raw[key] !== 'string') {
      errors.push(issue(childPath(path, key), `${key} must be a string`));
      return undefined;
    }
  const select = typeof raw.select === 'string' && raw.select.trim() !== '' ? raw.select.trim() : undefined;
  const written = typeof raw.decode === 'string' ? raw.decode.trim() : '';
  const decode = written === '' ? (select === undefined ? 'text' : 'json') : written;
  if (!DECODES.includes(decode)) {
    errors.push(issue(childPath(path, 'decode'), DECODE_WORDS));
    return undefined;
  }
  if (select === undefined) return { decode: decode as PickDecode };
  if (decode === 'text') {
    errors.push(issue(childPath(path, 'select'), SELECT_NEEDS));
    return undefined;
  }
  const segments = selectPath(select);
  if (segments === undefined) {
    errors.push(
      refusal(
        childPath(path, 'select'),
        'select other than a path such as .a.b[0] (a jq program would run in the operator)',
      ),
    );
    return undefined;
  }
  return { decode: decode as PickDecode, select: segments };
}

/** One entry of object-form `output:` (Dagu's parseStructuredOutputEntry). */
function readEntry(name: string, raw: unknown, path: string, errors: DagIssue[]): PickedEntry | undefined {
  // A mapping with none of the reserved keys is a literal object value, as in Dagu.
  if (!isMapping(raw) || !Object.keys(raw).some((key) => RESERVED.includes(key))) return { name, value: raw };
  const unknown = Object.keys(raw).find((key) => !RESERVED.includes(key));
  if (unknown !== undefined) return failed(errors, issue(childPath(path, unknown), `unknown field "${unknown}"`));
  if (raw.from !== undefined && typeof raw.from !== 'string')
    return failed(errors, issue(childPath(path, 'from'), 'from must be a string'));
  const from = typeof raw.from === 'string' ? raw.from.trim() : '';
  const hasValue = Object.hasOwn(raw, 'value');
  if (hasValue && from !== '') return failed(errors, issue(path, 'value and from cannot be used together'));
  if (!hasValue && from === '') return failed(errors, issue(path, 'entry must specify either a literal value or from'));
  if (!hasValue) return readStream(name, from, raw, path, errors);
  if (['path', 'decode', 'select'].some((key) => raw[key] !== undefined && raw[key] !== ''))
    return failed(errors, issue(path, 'path, decode, and select are only valid with from'));
  return { name, value: raw.value };
}

/** An entry that reads a stream or a file: `from` stdout, stderr or file, `path`, `decode`, `select`. */
function readStream(
  name: string,
  from: string,
  raw: Mapping,
  path: string,
  errors: DagIssue[],
): PickedEntry | undefined {
  if (from === 'file') return readFileEntry(name, raw, path, errors);
  if (from !== 'stdout' && from !== 'stderr')
    return failed(errors, issue(childPath(path, 'from'), 'from must be one of "stdout", "stderr", or "file"'));
  if (raw.path !== undefined)
    return failed(errors, issue(childPath(path, 'path'), 'path is only valid when from is file'));
  const picked = decodeAndSelect(raw, path, errors);
  return picked === undefined ? undefined : { name, from, ...picked };
}

/** `from: file`: a path is required (Dagu trims it, and an empty one is missing). */
function readFileEntry(name: string, raw: Mapping, path: string, errors: DagIssue[]): PickedEntry | undefined {
  if (raw.path !== undefined && typeof raw.path !== 'string')
    return failed(errors, issue(childPath(path, 'path'), 'path must be a string'));
  const file = typeof raw.path === 'string' ? raw.path.trim() : '';
  if (file === '') return failed(errors, issue(path, 'path is required when from is file'));
  const picked = decodeAndSelect(raw, path, errors);
  return picked === undefined ? undefined : { name, from: 'file', path: file, ...picked };
}

/** Object-form `output:`: `{NAME: entry}`. An empty mapping publishes nothing (undefined), as in Dagu. */
export function readObjectOutput(raw: Mapping, path: string, errors: DagIssue[]): PickedOutputs | undefined {
  const before = errors.length;
  const entries = Object.entries(raw).flatMap(([name, value]) => {
    const entry = readEntry(name, value, childPath(path, name), errors);
    return entry === undefined ? [] : [entry];
  });
  return errors.length > before || entries.length === 0 ? undefined : { entries };
}

const STDOUT_OUTPUT_KEYS = ['field', 'decode', 'select', 'fields'];

/** `stdout.outputs` (Dagu's parseStdoutOutputsConfig): a field name, or `{field, decode, select}`, or `{fields}`. */
export function readStdoutOutputs(raw: unknown, path: string, errors: DagIssue[]): PickedOutputs | undefined {
  if (typeof raw === 'string')
    return raw.trim() === ''
      ? failed(errors, issue(path, 'field must not be empty'))
      : { field: raw.trim(), decode: 'text' };
  const problem = stdoutOutputsProblem(raw, path);
  if (problem !== undefined) return failed(errors, problem);
  const config = raw as Mapping;
  if (config.fields !== undefined) return readFields(config.fields, childPath(path, 'fields'), errors);
  const picked = decodeAndSelect(config, path, errors);
  if (picked === undefined) return undefined;
  const field = typeof config.field === 'string' ? config.field.trim() : undefined;
  // Without a field, the stream is decoded as JSON unless told otherwise (evaluateStdoutOutputs).
  const decode = field === undefined && config.decode === undefined ? 'json' : picked.decode;
  // Dagu finds this only when the step has run; it can never work, so it is said at load.
  if (field === undefined && decode === 'text')
    return failed(errors, issue(path, 'field is required when stdout outputs use text'));
  return { ...(field === undefined ? {} : { field }), ...picked, decode };
}

/** What is wrong with the shape of a `stdout.outputs` mapping, in Dagu's words. */
function stdoutOutputsProblem(raw: unknown, path: string): DagIssue | undefined {
  if (!isMapping(raw)) return issue(path, 'must be a string field name or object');
  if (Object.keys(raw).length === 0) return issue(path, 'object must not be empty');
  const unknown = Object.keys(raw).find((key) => !STDOUT_OUTPUT_KEYS.includes(key));
  if (unknown !== undefined) return issue(childPath(path, unknown), `unknown field "${unknown}"`);
  if (raw.field !== undefined && (typeof raw.field !== 'string' || raw.field.trim() === ''))
    return issue(childPath(path, 'field'), 'field must be a non-empty string');
  if (raw.fields !== undefined && ['field', 'decode', 'select'].some((key) => raw[key] !== undefined))
    return issue(path, 'fields cannot be used with field, decode, or select');
  return undefined;
}

/** `stdout.outputs.fields`: each a literal, an entry with `from: stdout`, or `{decode, select}` of stdout. */
function readFields(raw: unknown, path: string, errors: DagIssue[]): PickedOutputs | undefined {
  if (!isMapping(raw)) return failed(errors, issue(path, 'fields must be an object'));
  if (Object.keys(raw).length === 0) return failed(errors, issue(path, 'fields must not be empty'));
  const before = errors.length;
  const entries = Object.entries(raw).flatMap(([key, value]): PickedEntry[] => {
    const name = key.trim();
    const at = childPath(path, key);
    if (name === '') return failed(errors, issue(path, 'fields contains an empty name'), []);
    if (!isMapping(value)) return [{ name, value }];
    if (value.from !== undefined || Object.hasOwn(value, 'value')) {
      const entry = readEntry(name, value, at, errors);
      if (entry !== undefined && 'from' in entry && entry.from !== 'stdout')
        return failed(errors, issue(childPath(at, 'from'), 'from must be "stdout"'), []);
      return entry === undefined ? [] : [entry];
    }
    const unknown = Object.keys(value).find((k) => k !== 'decode' && k !== 'select');
    if (unknown !== undefined) return failed(errors, issue(childPath(at, unknown), `unknown field "${unknown}"`), []);
    const picked = decodeAndSelect(value, at, errors);
    return picked === undefined ? [] : [{ name, from: 'stdout', ...picked }];
  });
  return errors.length > before ? undefined : { entries };
}

/** The entries that read a file in the step's container (the runner sends those files back). */
export function pickedFiles(picked: PickedOutputs | undefined): readonly Extract<PickedEntry, { from: 'file' }>[] {
  if (picked === undefined || !('entries' in picked)) return [];
  return picked.entries.flatMap((e) => ('from' in e && e.from === 'file' ? [e] : []));
}

/** Whether the picked outputs read stderr (the operator then reads it from the log store too). */
export function readsStderr(picked: PickedOutputs | undefined): boolean {
  return picked !== undefined && 'entries' in picked && picked.entries.some((e) => 'from' in e && e.from === 'stderr');
}
