/**
 * Dagu 2.x's declared step outputs at run time: the records a step wrote into DAGU_OUTPUT_FILE
 * (the runner sends them through its log, step-pod.ts), read with Dagu's rules (v2.15.1
 * `parseDeclaredStepOutputs`): one `name=value` per line, or `name<<DELIM`, the lines of the
 * value, then `DELIM`; every declared name exactly once, no other; a `json` output must be valid
 * JSON. A file that breaks a rule fails the step, as in Dagu. Pure.
 */
import type { Dag, DeclaredOutput, Step } from '../../../core/dag/index.ts';
import { INLINE_OUTPUT_BYTES } from '../pods/output-values.ts';

export type DeclaredValues = { readonly values: Readonly<Record<string, string>> } | { readonly error: string };

const DELIMITER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether the step (or handler) of that name declares outputs: its log then carries their records. */
export function declaresOutputs(dag: Dag, stepName: string): boolean {
  const step: Step | undefined =
    dag.steps.find((s) => s.name === stepName) ?? Object.values(dag.handlerOn).find((s) => s.name === stepName);
  return step?.declaredOutputs !== undefined;
}

/** The values of a succeeded attempt, or why its output file fails the step. */
export function readDeclaredOutputs(
  records: string,
  declared: readonly DeclaredOutput[],
  maxOutputSize: number,
): DeclaredValues {
  const parsed = parseRecords(records, declared);
  if ('error' in parsed) return { error: `failed to parse DAGU_OUTPUT_FILE: ${parsed.error}` };
  const bytes = Buffer.byteLength(JSON.stringify(parsed.values));
  if (bytes > maxOutputSize)
    return { error: `step outputs exceeded maximum size limit of ${String(maxOutputSize)} bytes` };
  // The values live in the run's status (no log to read them back from, unlike `output:`).
  if (bytes > INLINE_OUTPUT_BYTES)
    return {
      error: `step outputs of ${String(bytes)} bytes exceed the ${String(INLINE_OUTPUT_BYTES / 1024)} KiB Kubedag keeps in a run's status`,
    };
  return parsed;
}

function parseRecords(records: string, declared: readonly DeclaredOutput[]): DeclaredValues {
  const byName = new Map(declared.map((d) => [d.name, d]));
  const values: Record<string, string> = {};
  const text = records.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
  const lines = text === '' ? [] : text.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const record = recordAt(lines, i);
    if ('error' in record) return record;
    const problem = recordProblem(byName.get(record.name), record.name, record.value, values);
    if (problem !== undefined) return { error: problem };
    values[record.name] = record.value;
    i = record.last;
  }
  const missing = declared.find((d) => !Object.hasOwn(values, d.name));
  return missing === undefined ? { values } : { error: `declared step output "${missing.name}" was not emitted` };
}

type OutputRecord =
  { readonly name: string; readonly value: string; readonly last: number } | { readonly error: string };

/** The record that starts at line `i` (0-based): `name=value`, or `name<<DELIM` up to `DELIM`. */
function recordAt(lines: readonly string[], i: number): OutputRecord {
  const line = lines[i] ?? '';
  const at = String(i + 1);
  if (line === '') return { error: `empty line at line ${at} is not a valid step output record` };
  const equals = line.indexOf('=');
  const heredoc = line.indexOf('<<');
  if (heredoc >= 0 && (equals < 0 || heredoc < equals)) {
    const name = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    if (name === '') return { error: `missing output name at line ${at}` };
    if (!DELIMITER.test(delimiter)) return { error: `invalid multiline delimiter at line ${at}` };
    const end = lines.indexOf(delimiter, i + 1);
    if (end < 0) return { error: `unclosed multiline output "${name}"` };
    return { name, value: lines.slice(i + 1, end).join('\n'), last: end };
  }
  if (equals < 0) return { error: `invalid step output record at line ${at}` };
  if (equals === 0) return { error: `missing output name at line ${at}` };
  return { name: line.slice(0, equals), value: line.slice(equals + 1), last: i };
}

function recordProblem(
  declaration: DeclaredOutput | undefined,
  name: string,
  value: string,
  values: Readonly<Record<string, string>>,
): string | undefined {
  if (declaration === undefined) return `undeclared step output "${name}"`;
  if (Object.hasOwn(values, name)) return `duplicate step output "${name}"`;
  if (declaration.type === 'json' && !isJson(value)) return `step output "${name}" is not valid JSON`;
  return undefined;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
