/**
 * Dagu 2.x's picked outputs at run time (v2.15.1 `internal/runtime/node.go`
 * evaluateStructuredOutput, evaluateStdoutOutputs): the values of a succeeded attempt, taken out
 * of the stdout and stderr the operator already reads from the log store, out of the files the
 * step's runner sent back (`from: file`, picked-files.ts), or given as literals.
 * A stream that does not decode, or a select path that does not resolve, fails the step, as in
 * Dagu. Values are kept as strings (a string as it is, anything else as JSON), which is what
 * `${steps.<id>.outputs.<name>}` substitutes. Pure: a select is a path, never a jq program.
 */
import { CORE_SCHEMA, load } from 'js-yaml';
import {
  expand,
  type PickDecode,
  type PickedEntry,
  type PickedOutputs,
  type StepReference,
} from '../../../core/dag/index.ts';
import { MASK } from '../../../core/logs/mask.ts';
import { INLINE_OUTPUT_BYTES } from '../pods/output-values.ts';
import type { FileRead } from './picked-files.ts';

export type PickedValues = { readonly values: Readonly<Record<string, string>> } | { readonly error: string };

/** What the values are picked from: the attempt's streams, and the variables a literal may name. */
export interface PickSources {
  readonly stdout: string;
  readonly stderr: string;
  /** The `from: file` entries' files, by entry name, as the runner sent them (picked-files.ts). */
  readonly files?: Readonly<Record<string, FileRead>>;
  readonly variables: Readonly<Record<string, string>>;
  /** The outputs earlier steps published, for a literal's `${steps.<id>.outputs.<name>}`. */
  readonly steps?: Readonly<Record<string, StepReference>>;
}

type Picked = { readonly value: unknown } | { readonly error: string };

/** The picked values of a succeeded attempt, or why picking them fails the step. */
export function pickValues(picked: PickedOutputs, sources: PickSources, maxOutputSize: number): PickedValues {
  const result = 'entries' in picked ? pickEntries(picked.entries, sources) : pickWhole(picked, sources.stdout);
  if ('error' in result) return result;
  const bytes = Buffer.byteLength(JSON.stringify(result.values));
  if (bytes > maxOutputSize) return { error: `outputs exceeded maximum size limit of ${String(maxOutputSize)} bytes` };
  // The values live in the run's status, as declared outputs do (declared-outputs.ts).
  if (bytes > INLINE_OUTPUT_BYTES)
    return {
      error: `step outputs of ${String(bytes)} bytes exceed the ${String(INLINE_OUTPUT_BYTES / 1024)} KiB Kubedag keeps in a run's status`,
    };
  return result;
}

function pickEntries(entries: readonly PickedEntry[], sources: PickSources): PickedValues {
  const values: Record<string, string> = {};
  for (const entry of entries) {
    const one = pickEntry(entry, sources);
    if ('error' in one) return { error: `failed to evaluate structured output: ${one.error}` };
    values[entry.name] = asText(one.value);
  }
  return { values };
}

function pickEntry(entry: PickedEntry, sources: PickSources): Picked {
  if ('value' in entry) return { value: withVariables(entry.value, sources) };
  const file = entry.from === 'file' ? (sources.files?.[entry.name] ?? { error: 'the file was not read' }) : undefined;
  if (file !== undefined && 'error' in file) return { error: `${entry.name}: ${file.error}` };
  const raw = file?.text ?? (entry.from === 'stdout' ? sources.stdout : sources.stderr);
  if (entry.decode === 'text') return { value: raw.trim() };
  return decoded(entry.name, raw, entry.decode, entry.select);
}

/** `stdout.outputs` without fields: the whole stream as one value, or the keys of its decoded object. */
function pickWhole(picked: Extract<PickedOutputs, { decode: PickDecode }>, stdout: string): PickedValues {
  if (picked.decode === 'text') return { values: { [picked.field ?? '']: stdout.trim() } };
  const one = decoded('stdout.outputs', stdout, picked.decode, picked.select);
  if ('error' in one) return { error: `failed to evaluate stdout outputs: ${one.error}` };
  if (picked.field !== undefined) return { values: { [picked.field]: asText(one.value) } };
  if (!isObject(one.value))
    return {
      error: 'failed to evaluate stdout outputs: decoded stdout outputs must be an object when field is omitted',
    };
  return { values: Object.fromEntries(Object.entries(one.value).map(([k, v]) => [k, asText(v)])) };
}

function decoded(key: string, raw: string, decode: 'json' | 'yaml', select?: readonly (string | number)[]): Picked {
  let value: unknown;
  try {
    value = decode === 'json' ? JSON.parse(raw) : loadMaskedYaml(raw);
  } catch {
    return { error: `${key}: failed to decode ${decode.toUpperCase()}` };
  }
  if (select === undefined) return { value };
  const selected = selectFrom(value, select);
  return selected === NOT_FOUND
    ? { error: `${key}: failed to resolve select path "${pathText(select)}"` }
    : { value: selected };
}

/**
 * The operator reads the streams with run secrets masked, and the mask at the start of a plain
 * YAML scalar reads as an alias (`token: *******` does not decode). So the YAML is decoded with a
 * stand-in for the mask, which is put back in every string the decoding gives.
 */
function loadMaskedYaml(raw: string): unknown {
  if (!raw.includes(MASK)) return load(raw, { schema: CORE_SCHEMA });
  let stand = 'kubedag-masked-secret';
  while (raw.includes(stand)) stand += '-';
  const back = (value: unknown): unknown => {
    if (typeof value === 'string') return value.split(stand).join(MASK);
    if (Array.isArray(value)) return value.map(back);
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [back(k) as string, back(v)]));
    return value;
  };
  return back(load(raw.split(MASK).join(stand), { schema: CORE_SCHEMA }));
}

const NOT_FOUND = Symbol('not found');

/**
 * A jq path applied as jq does: a missing key or an index past the end is null, and so is any
 * step into null; a key into anything but an object, or an index into anything but an array,
 * is an error (jq "Cannot index").
 */
export function selectFrom(value: unknown, path: readonly (string | number)[]): unknown {
  let at: unknown = value;
  for (const segment of path) {
    if (at === null || at === undefined) at = null;
    else if (typeof segment === 'number') {
      if (!Array.isArray(at)) return NOT_FOUND;
      at = at.at(segment) ?? null;
    } else {
      if (!isObject(at)) return NOT_FOUND;
      at = Object.hasOwn(at, segment) ? at[segment] : null;
    }
  }
  return at;
}

function pathText(path: readonly (string | number)[]): string {
  return path.length === 0 ? '.' : path.map((s) => (typeof s === 'number' ? `[${String(s)}]` : `.${s}`)).join('');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A string as it is, anything else (numbers, objects, null) as JSON: what a reference substitutes. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? null);
}

/**
 * A literal's strings with the step's known variables and earlier steps' published outputs
 * substituted (Dagu resolves them at run time too; outputs.write republishes values so).
 */
function withVariables(value: unknown, sources: PickSources): unknown {
  if (typeof value === 'string')
    return expand(value, {
      scopes: [sources.variables],
      ...(sources.steps === undefined ? {} : { steps: sources.steps }),
    }).value;
  if (Array.isArray(value)) return value.map((item: unknown) => withVariables(item, sources));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withVariables(v, sources)]));
}
