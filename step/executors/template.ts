/**
 * Dagu 2.x's template executor (`template.render`), as v2.15.1 runs it
 * (internal/runtime/builtin/template/): the step's script is a Go text/template rendered over
 * `with.data` with missingkey=error, written to stdout or, with `output`, to that file
 * (relative paths against the step's working directory; written beside it and renamed over it,
 * mode 0600, parent folders 0750). Strings in `data` get `${VAR}` expanded, as Dagu evaluates a
 * step's settings; the template itself is rendered as written (`$x` there is a template
 * variable). Kubedag renders a subset of the template language: core/template/.
 * With `with.template_ref` the template is a value known only now: a variable of the run (the
 * loader made `${env.NAME}`/`${params.NAME}` the plain `${NAME}`) read from the step's
 * environment, or a step's output the operator has already put in; it is parsed here, and
 * what Kubedag's subset lacks fails the step with the parse error the loader gives a written
 * template.
 */
import * as fs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { parseTemplate, TemplateError } from '../../core/template/parse.ts';
import { renderTemplate } from '../../core/template/render.ts';
import type { StepIO } from '../io.ts';
import { expandDeep } from './expand-settings.ts';
import { resolvePath } from './file-settings.ts';
import { textSetting } from '../settings.ts';

function dataOf(spec: ExecutorSpec, env: Readonly<Record<string, string>>): unknown {
  const data = spec.config.data;
  if (data === undefined || data === null) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new Error('template: data must be a mapping');
  return expandDeep(data, env);
}

async function writeOutput(path: string, text: string): Promise<void> {
  await fs.mkdir(dirname(path), { recursive: true, mode: 0o750 }).catch((error: unknown) => {
    throw new Error(`template: failed to create output directory: ${(error as Error).message}`, { cause: error });
  });
  const temporary = join(dirname(path), `.${basename(path)}.${String(process.pid)}.tmp`);
  try {
    await fs.writeFile(temporary, text, { mode: 0o600 });
    await fs.rename(temporary, path);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw new Error(`template: failed to write output file: ${(error as Error).message}`, { cause: error });
  }
}

/** The template: the step's script, or the value with.template_ref names. */
export function templateText(spec: ExecutorSpec, env: Readonly<Record<string, string>>): string {
  const ref = spec.config.template_ref;
  if (ref === undefined) {
    if (spec.script === undefined) throw new Error('template: script field is required');
    return spec.script;
  }
  if (spec.script !== undefined)
    throw new Error('template: template step cannot use both script and with.template_ref');
  if (typeof ref !== 'string') throw new Error('template: with.template_ref must resolve to a string');
  const variable = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(ref)?.[1];
  if (variable !== undefined) {
    const value = env[variable];
    if (value === undefined) throw new Error(`template: with.template_ref: variable ${variable} is not set`);
    return value;
  }
  // The operator substitutes a published output; one still written as a reference was not published.
  if (ref.startsWith('${steps.'))
    throw new Error(`template: with.template_ref: ${ref} has no value (no step published it)`);
  return ref;
}

export async function runTemplate(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const template = templateText(spec, io.env);
  let nodes;
  try {
    nodes = parseTemplate(template);
  } catch (error) {
    if (error instanceof TemplateError) throw new Error(`template: parse error: ${error.message}`, { cause: error });
    throw error;
  }
  let text: string;
  try {
    text = renderTemplate(nodes, dataOf(spec, io.env));
  } catch (error) {
    if (error instanceof TemplateError)
      throw new Error(`template: execution error: ${error.message}`, { cause: error });
    throw error;
  }
  const output = textSetting(spec.config, 'output', io.env) ?? '';
  if (output.trim() === '') io.stdout.write(text);
  else await writeOutput(resolvePath(output, io.cwd, io.env.HOME), text);
  return 0;
}
