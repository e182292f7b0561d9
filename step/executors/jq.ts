/**
 * The jq executor: `command` is the filter (several lines too; none means `.`, as gojq parses an
 * empty query), `script` the JSON input, or `input` a file that holds it (Dagu 2.x). The
 * filter runs in the real jq, compiled to WebAssembly (jq-wasm); its results are written as
 * Dagu v1.24.11 writes them: each as Go's indented JSON (four spaces, keys sorted), or with
 * `raw` strings bare, null as an empty line, numbers as Go prints a float64 and arrays and
 * objects as compact JSON. As in Dagu, input that is not one JSON value or a filter with a
 * syntax error fails the step; an error while the filter runs, or a name in it that is not
 * defined (gojq finds those only when the query runs), is written on stderr as
 * `failed to run jq query: <message>` and the step still succeeds with the results before it.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
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

/**
 * The filter inside a `try` that turns each result into [0, result] and the error into a last
 * [1, error]. A filter that compiles alone means the same in parentheses; the newline keeps a
 * trailing `# comment` from swallowing the wrapper, and the filter stays on line 1 for
 * `$__loc__`.
 */
const wrapped = (filter: string): string => `try ((${filter}\n) | [0, .]) catch [1, .]`;

/** Compile errors that gojq finds only when the query runs, so that Dagu reports them as run errors. */
const FOUND_WHEN_RUN = /( is not defined at |^module not found)/;

export interface CompileFailure {
  /** A syntax error fails the step, as gojq.Parse's error does in Dagu. */
  readonly syntax: boolean;
  readonly message: string;
}

/** jq's compile errors, without its echo of the filter and its count, and whether one is a syntax error. */
export function compileFailure(stderr: string): CompileFailure {
  const errors = stderr
    .split('\n')
    .filter((line) => line.startsWith('jq: error: '))
    .map((line) => line.slice('jq: error: '.length).replace(/:$/, ''));
  if (errors.length === 0) return { syntax: true, message: stderr.trim() };
  return { syntax: errors.some((e) => !FOUND_WHEN_RUN.test(e)), message: errors.join('; ') };
}

/** An error value as jq's command line prints it, without its `jq: error (at ...)` prefix. */
export function errorText(value: unknown): string {
  return typeof value === 'string' ? value : `(not a string): ${JSON.stringify(value)}`;
}

/** jq's command-line message for an error while running, in errorText's form. */
const runErrorText = (stderr: string): string => stderr.replace(/^jq: error \(at [^)]*\):? ?/, '');

interface JqRun {
  readonly results: unknown[];
  /** Why the filter stopped early, as the text after `failed to run jq query: `. */
  readonly error?: string;
  readonly compile?: CompileFailure;
}

interface RawRun {
  readonly lines: string[];
  readonly stderr?: string;
  readonly status: number;
}

/**
 * Runs jq with compact output, one result a line. jq-wasm reports jq's exit status through
 * process.exitCode; it is read and put back here, so that it never decides the runner's own.
 */
async function runRaw(input: string, filter: string): Promise<RawRun> {
  const before = process.exitCode;
  process.exitCode = 0;
  let output = '';
  let stderr: string | undefined;
  try {
    output = await jq.raw(input, filter, ['-c']);
  } catch (thrown) {
    stderr = (thrown as Error).message.replace(/^Failed to execute raw query: /, '');
  }
  // Read through a function: the compiler would take the value as the 0 set above.
  const status = Number(exitStatus() ?? 0);
  process.exitCode = before;
  return { lines: output === '' ? [] : output.split('\n'), ...(stderr === undefined ? {} : { stderr }), status };
}

const parsed = (run: RawRun): unknown[] => run.lines.map((line) => JSON.parse(line) as unknown);

/**
 * jq-wasm hands back jq's stderr only when there was no output. When an error came after some
 * results, the filter runs a second time wrapped, only to learn the message; the results stay
 * those of the first run.
 */
async function evaluate(input: string, filter: string): Promise<JqRun> {
  const run = await runRaw(input, filter);
  if (run.status === COMPILE_ERROR) return { results: [], compile: compileFailure(run.stderr ?? '') };
  if (run.status === 0) return { results: parsed(run) };
  if (run.stderr !== undefined) return { results: [], error: runErrorText(run.stderr) };
  const again = await runRaw(input, wrapped(filter));
  const caught = again.lines.map((line) => JSON.parse(line) as [0 | 1, unknown]).find(([tag]) => tag === 1);
  // halt_error is not caught: jq's status is all there is.
  return {
    results: parsed(run),
    error: caught === undefined ? `jq stopped with exit status ${String(run.status)}` : errorText(caught[1]),
  };
}

/**
 * The JSON input: the script, or (Dagu 2.x `input`) the file it names, relative to the step's
 * working directory. As in Dagu, the script's `${VAR}` references are expanded and so is the
 * path, never the file's content; the filter's `$names` are jq's own.
 */
async function readInput(spec: ExecutorSpec, io: StepIO): Promise<unknown> {
  const named = spec.config.input;
  if (named !== undefined) {
    if (typeof named !== 'string') throw new SettingError('input: must be the path of a JSON file');
    const path = resolve(io.cwd, expandSetting(named, io.env).trim());
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new SettingError(`input: cannot read the JSON input file ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    });
    return parseInput(text, `input: ${path} must hold one JSON value`);
  }
  return parseInput(expandSetting(spec.script ?? '', io.env), 'script: the jq input must be one JSON value');
}

function parseInput(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SettingError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}

export async function runJq(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const given = spec.command ?? '';
  // gojq (Dagu's jq) reads an empty query as the identity: the input, pretty-printed.
  const filter = given.trim() === '' ? '.' : given;
  const raw = boolSetting(spec.config, 'raw', io.env);
  const input = await readInput(spec, io);
  const run = await evaluate(JSON.stringify(input), filter);
  if (run.compile?.syntax === true)
    throw new SettingError(`command: the jq filter does not compile: ${run.compile.message}`);
  for (const value of run.results) io.stdout.write(formatResult(value, raw));
  const error = run.compile?.message ?? run.error;
  if (error !== undefined) io.stderr.write(`failed to run jq query: ${error}\n`);
  return 0;
}
