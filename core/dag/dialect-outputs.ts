/**
 * Dagu 2.x's declared step outputs, `outputs: [{name, type}]`, in a 2.x document. The step writes
 * `name=value` records into the file DAGU_OUTPUT_FILE names; later steps read a value as
 * `${steps.<id>.outputs.<name>}`. Checked here with Dagu's rules (v2.15.1 `parseDeclaredOutputs`
 * and `buildStepDeclaredOutputs`) and kept as a list of `{name, type}` for the 1.x reader; what
 * Kubedag cannot carry (a `path` output, which belongs to build DAGs; a step that does not run in
 * its own Pod's shell) is refused by name. Pure.
 */
import { cleanArtifactPath, type ArtifactPathProblem } from './artifact-path.ts';
import { refusal } from './dialect-refusal.ts';
import { fileOutputWhy } from './dialect-refusal-narrow.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { DeclaredOutput } from './model.ts';
import { pickedFiles, readObjectOutput, readStdoutOutputs } from './picked-outputs.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** Dagu's name rule for an output (and for the step id a reference names). */
export const OUTPUT_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

const FIELDS = ['name', 'type', 'path'];

/**
 * Step types whose command runs in the step Pod's own shell, where DAGU_OUTPUT_FILE can be
 * written and read back. The others run elsewhere (a remote host, an HTTP server, the step
 * runner, a container of another image or the DAG's shared container).
 */
const SHELL_TYPES = ['command', 'shell'];
/**
 * Types whose command also runs in a step Pod of its own, from the step's image, through the
 * same runner shell: kubernetes steps, and docker steps that name an image and no container
 * (docs/decisions/2026-11-29-dagu-2x-steps.md).
 */
const OWN_POD_TYPES = ['kubernetes', 'k8s'];
const DOCKER_TYPES = ['docker', 'container'];

/** A step's `outputs` checked and kept, or taken out with the errors that say why. */
export function withDeclaredOutputs(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (!Object.hasOwn(step, 'outputs')) return step;
  const { outputs, ...rest } = step;
  const at = childPath(path, 'outputs');
  const declared = readDeclaredOutputs(outputs, at, errors);
  if (typeof step.id !== 'string' || step.id.trim() === '')
    errors.push(issue(at, 'a step with outputs must define id'));
  const elsewhere = runsElsewhere(rest);
  if (elsewhere !== undefined) errors.push(refusal(at, `outputs on ${elsewhere}`, fileOutputWhy(elsewhere)));
  return declared === undefined || elsewhere !== undefined ? rest : { ...rest, outputs: declared };
}

function runsElsewhere(step: Mapping): string | undefined {
  if (step.call !== undefined) return 'a sub-DAG step';
  const type = step.type;
  if (typeof type !== 'string' || SHELL_TYPES.includes(type) || OWN_POD_TYPES.includes(type)) return undefined;
  if (!DOCKER_TYPES.includes(type)) return `a step of type ${type}`;
  const settings = [step.config, step.with].find(isMapping) ?? {};
  if (typeof settings.containerName === 'string' && settings.containerName !== '')
    return `a ${type} step that names a container (containerName: its command runs in that container, through exec)`;
  return typeof settings.image === 'string' && settings.image !== '' ? undefined : `a ${type} step without an image`;
}

function readDeclaredOutputs(value: unknown, path: string, errors: DagIssue[]): DeclaredOutput[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    errors.push(issue(path, 'must be a non-empty sequence'));
    return undefined;
  }
  const seen = new Set<string>();
  const before = errors.length;
  const declared = value.flatMap((item: unknown, i) => {
    const one = readOne(item, childPath(path, i), seen);
    if ('message' in one) errors.push(one);
    return 'message' in one ? [] : [one];
  });
  return errors.length === before ? declared : undefined;
}

/** One declared output, or the first thing wrong with it. */
function readOne(item: unknown, path: string, seen: Set<string>): DeclaredOutput | DagIssue {
  if (!isMapping(item)) return issue(path, 'must be an object');
  if (Object.keys(item).length === 0) return issue(path, 'must not be empty');
  const unknown = Object.keys(item).find((key) => !FIELDS.includes(key));
  if (unknown !== undefined)
    return issue(childPath(path, unknown), `unknown field "${unknown}" (an output takes ${FIELDS.join(', ')})`);
  if (item.name === undefined) return issue(path, 'name is required');
  if (typeof item.name !== 'string') return issue(childPath(path, 'name'), 'must be a string');
  const name = item.name.trim();
  if (!OUTPUT_NAME.test(name)) return issue(childPath(path, 'name'), `"${name}" must match ${OUTPUT_NAME.source}`);
  if (seen.has(name)) return issue(childPath(path, 'name'), `duplicate output name "${name}"`);
  seen.add(name);
  if (item.path !== undefined) return pathProblem(item, path);
  const type = typeof item.type === 'string' ? item.type.trim() : item.type;
  if (type === undefined) return { name, type: 'string' };
  if (type === 'string' || type === 'json') return { name, type };
  return issue(childPath(path, 'type'), 'must be "string" or "json"');
}

/**
 * A path output is a build path (Dagu takes it only in a `type: build` DAG, validateBuildStep):
 * refused deliberately, as build DAGs are, after Dagu's checks of the entry.
 */
function pathProblem(item: Mapping, path: string): DagIssue {
  if (typeof item.path !== 'string') return issue(childPath(path, 'path'), 'must be a string');
  if (item.path.trim() === '') return issue(childPath(path, 'path'), 'must not be empty');
  if (item.type !== undefined) return issue(path, 'type and path cannot be used together');
  return refusal(childPath(path, 'path'), 'outputs path (an output published as a file)');
}

/**
 * Steps with outputs in a DAG with a DAG-level `container`: those run by exec in the run's one
 * container Pod, through the step runner, where the output file is not the runner's to read.
 */
export function refuseOutputsInContainer(document: Mapping, errors: DagIssue[]): void {
  if (document.container === undefined) return;
  const handlers = isMapping(document.handlerOn)
    ? Object.entries(document.handlerOn).flatMap(([event, step]) =>
        stepsWithOutputs(step, childPath('handlerOn', event)),
      )
    : [];
  for (const [at, step] of [...stepsWithOutputs(document.steps, 'steps'), ...handlers]) {
    // Steps of other types were refused already, with their type named.
    if (typeof step.type === 'string' && !SHELL_TYPES.includes(step.type)) continue;
    if (Object.hasOwn(step, 'outputs')) {
      errors.push(refusal(childPath(at, 'outputs'), 'outputs on a step that runs in the DAG-level container'));
      delete step.outputs;
    }
    if (readsFile(step.output)) {
      errors.push(refusal(childPath(at, 'output'), 'output from: file on a step that runs in the DAG-level container'));
      delete step.output;
    }
  }
}

/** Whether an object-form `output:` (checked already) has an entry that reads a file. */
function readsFile(output: unknown): boolean {
  return (
    isMapping(output) &&
    Object.values(output).some(
      (entry) => isMapping(entry) && typeof entry.from === 'string' && entry.from.trim() === 'file',
    )
  );
}

/** Steps that declare outputs or pick one from a file: what the step Pod's runner must read. */
function stepsWithOutputs(steps: unknown, path: string): [string, Mapping][] {
  if (Array.isArray(steps)) return steps.flatMap((item: unknown, i) => stepsWithOutputs(item, childPath(path, i)));
  if (!isMapping(steps)) return [];
  if (Object.hasOwn(steps, 'outputs') || readsFile(steps.output)) return [[path, steps]];
  if (path === 'steps')
    return Object.entries(steps).flatMap(([name, item]) => stepsWithOutputs(item, childPath(path, name)));
  return [];
}

/**
 * Object-form `output:`, `stdout: {artifact, outputs}` and `stderr: {artifact}` checked with
 * Dagu's rules and kept as written, paths cleaned (the 1.x shape takes these objects, and the
 * loader reads them into Step.pickedOutputs and the step's stdout/stderr files).
 */
export function withPickedOutputs(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  const out = { ...step };
  if (isMapping(step.output)) {
    const before = errors.length;
    const call =
      step.call !== undefined ? refusal(childPath(path, 'output'), 'object-form output on a sub-DAG step') : undefined;
    if (call !== undefined) errors.push(call);
    else fileOutputsOutOfReach(step, readObjectOutput(step.output, childPath(path, 'output'), errors), path, errors);
    if (errors.length > before || Object.keys(step.output).length === 0) delete out.output;
  }
  const redirect = (field: 'stdout' | 'stderr'): Mapping | undefined =>
    redirectObject(step, field, childPath(path, field), errors);
  if (isMapping(step.stdout)) out.stdout = redirect('stdout');
  if (isMapping(step.stderr)) out.stderr = redirect('stderr');
  if (out.stdout === undefined) delete out.stdout;
  if (out.stderr === undefined) delete out.stderr;
  const [stdout, stderr] = [out.stdout, out.stderr].map((v) => (isMapping(v) ? v.artifact : undefined));
  if (typeof stdout === 'string' && stdout === stderr)
    errors.push(
      issue(
        path,
        `stdout.artifact and stderr.artifact cannot point to the same file "${stdout}"; use 'log_output: merged' instead`,
      ),
    );
  return out;
}

/**
 * `from: file` is read by the step Pod's runner after the command, in the step's working
 * directory: only where the command runs in that Pod's own shell, as for declared outputs.
 */
function fileOutputsOutOfReach(
  step: Mapping,
  picked: ReturnType<typeof readObjectOutput>,
  path: string,
  errors: DagIssue[],
): void {
  if (pickedFiles(picked).length === 0) return;
  const elsewhere = runsElsewhere(step);
  if (elsewhere !== undefined)
    errors.push(refusal(childPath(path, 'output'), `output from: file on ${elsewhere}`, fileOutputWhy(elsewhere)));
}

const ARTIFACT_PATH_WORDS: Readonly<Record<ArtifactPathProblem, string>> = {
  empty: 'path must not be empty',
  absolute: 'artifact path must be relative',
  parent: 'artifact path must not contain parent directory segments',
  root: 'artifact path must name a file',
};

/**
 * `stdout: {artifact, outputs}` or `stderr: {artifact}` (Dagu's parseStepObjectOutputRedirect):
 * the artifact path cleaned and the outputs part checked, or undefined with the errors that say why.
 */
function redirectObject(
  step: Mapping,
  field: 'stdout' | 'stderr',
  path: string,
  errors: DagIssue[],
): Mapping | undefined {
  const object = step[field] as Mapping;
  if (Object.keys(object).length === 0) {
    errors.push(issue(path, `${field} object must not be empty`));
    return undefined;
  }
  const allowed = field === 'stdout' ? ['artifact', 'outputs'] : ['artifact'];
  const other = Object.keys(object).find((key) => !allowed.includes(key));
  if (other !== undefined) {
    errors.push(
      other === 'outputs'
        ? issue(childPath(path, other), `${field}.outputs is not supported`)
        : issue(path, `${field} object supports only ${allowed.join(' and ')}`),
    );
    return undefined;
  }
  const before = errors.length;
  const artifact = Object.hasOwn(object, 'artifact')
    ? artifactOf(step, object.artifact, childPath(path, 'artifact'), errors)
    : undefined;
  const outputs = Object.hasOwn(object, 'outputs')
    ? stdoutOutputs(step, object.outputs, childPath(path, 'outputs'), errors)
    : undefined;
  if (errors.length > before) return undefined;
  return { ...(artifact === undefined ? {} : { artifact }), ...(outputs === undefined ? {} : { outputs }) };
}

/** `<field>.artifact`: a path inside the run's artifacts directory, the step's stream written there. */
function artifactOf(step: Mapping, value: unknown, path: string, errors: DagIssue[]): string | undefined {
  if (step.call !== undefined) {
    errors.push(
      refusal(
        path,
        path.endsWith('stderr.artifact') ? 'stderr.artifact on a sub-DAG step' : 'stdout.artifact on a sub-DAG step',
      ),
    );
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.push(issue(path, 'must be a string'));
    return undefined;
  }
  const clean = cleanArtifactPath(value, false);
  if ('path' in clean) return clean.path;
  errors.push(issue(path, ARTIFACT_PATH_WORDS[clean.problem]));
  return undefined;
}

/** `stdout.outputs`: checked, kept as written. */
function stdoutOutputs(step: Mapping, value: unknown, path: string, errors: DagIssue[]): unknown {
  if (step.call !== undefined) {
    errors.push(refusal(path, 'stdout.outputs on a sub-DAG step'));
    return undefined;
  }
  readStdoutOutputs(value, path, errors);
  return value;
}
