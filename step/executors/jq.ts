/**
 * The jq executor: `command` is the filter (several lines too), `script` the JSON input. The
 * filter runs in the real jq, compiled to WebAssembly (jq-wasm); its results are written as
 * Dagu v1.24.11 writes them: each as Go's indented JSON (four spaces, keys sorted), or with
 * `raw` strings bare, null as an empty line, numbers as Go prints a float64 and arrays and
 * objects as compact JSON. As in Dagu, input that is not one JSON value or a filter that does
 * not compile fails the step; an error while the filter runs is reported on stderr and the
 * step still succeeds with the results before it.
 */
import * as jq from 'jq-wasm';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { goFloat, goJson } from '../go-text.ts';
import type { StepIO } from '../io.ts';
import { expandSetting } from '../io.ts';
import { boolSetting, SettingError } from '../settings.ts';

/** One result as Dagu writes it. */
export function formatResult(value: unknown, raw: boolean): string {
  if (!raw) return `${goJson(value, '    ')}\n`;
  if (value === null) return '\n';
  if (typeof value === 'string') return `${value}\n`;
  if (typeof value === 'number') return `${goFloat(value)}\n`;
  return `${goJson(value)}\n`;
}

const exitStatus = (): unknown => process.exitCode;

/** jq's exit status for a filter that does not compile. */
const COMPILE_ERROR = 3;

interface JqRun {
  readonly results: unknown[];
  /** jq's message when it stopped on an error. */
  readonly error?: string;
  readonly compileError: boolean;
}

/**
 * Runs jq with compact output, one result a line, which parses back into values. jq-wasm
 * reports jq's exit status through process.exitCode; it is read and put back here, so that it
 * never decides the runner's own.
 */
async function evaluate(input: string, filter: string): Promise<JqRun> {
  const before = process.exitCode;
  process.exitCode = 0;
  let output = '';
  let error: string | undefined;
  try {
    output = await jq.raw(input, filter, ['-c']);
  } catch (thrown) {
    error = (thrown as Error).message.replace(/^Failed to execute raw query: /, '');
  }
  // Read through a function: the compiler would take the value as the 0 set above.
  const status = Number(exitStatus() ?? 0);
  process.exitCode = before;
  const results = output === '' ? [] : output.split('\n').map((line) => JSON.parse(line) as unknown);
  // jq-wasm keeps stderr only when there is no output: a later error is known by its status.
  if (error === undefined && status !== 0) error = `jq stopped with exit status ${String(status)}`;
  return { results, ...(error === undefined ? {} : { error }), compileError: status === COMPILE_ERROR };
}

export async function runJq(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const filter = spec.command ?? '';
  if (filter.trim() === '') throw new SettingError('command: the jq executor needs the filter');
  const raw = boolSetting(spec.config, 'raw', io.env);
  let input: unknown;
  try {
    // As in Dagu, the input's `${VAR}` references are expanded, the filter's `$names` are jq's own.
    input = JSON.parse(expandSetting(spec.script ?? '', io.env));
  } catch (error) {
    throw new SettingError(`script: the jq input must be one JSON value: ${(error as Error).message}`, { cause: error });
  }
  const run = await evaluate(JSON.stringify(input), filter);
  if (run.compileError) throw new SettingError(`command: the jq filter does not compile: ${run.error ?? ''}`);
  for (const value of run.results) io.stdout.write(formatResult(value, raw));
  if (run.error !== undefined) io.stderr.write(`failed to run jq query: ${run.error}\n`);
  return 0;
}
