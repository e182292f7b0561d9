/**
 * A 2.x typed step's executor settings (`with:`/`config:`) in their 1.x spelling: snake_case
 * keys renamed by SETTINGS_SPELLINGS, keys with no 1.x counterpart refused by name
 * (REFUSED_SETTINGS), and the http executor's `method` + `url`, which 2.x may write as
 * settings, made the `METHOD url` command 1.x writes.
 */
import { canonicalExecutorType } from './executors.ts';
import { REFUSED_SETTINGS, SETTINGS_SPELLINGS } from './dialect-spellings.ts';
import { refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { containerEntry } from './docker-settings.ts';
import { containerShell } from './container-settings.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

/** REFUSED_SETTINGS as a table; the type checks each feature has its reason in DELIBERATE. */
const REFUSED_SETTINGS_BY_TYPE: Readonly<Record<string, Readonly<Record<string, DeliberateFeature>>>> =
  REFUSED_SETTINGS;

type Mapping = Record<string, unknown>;

export function withOneXSettings(step: Mapping, path: string, errors: DagIssue[]): Mapping {
  if (typeof step.type !== 'string') return step;
  const type = canonicalExecutorType(step.type);
  const key = Object.hasOwn(step, 'with') ? 'with' : 'config';
  const settings = step[key];
  if (type === undefined || !isMapping(settings)) return step;
  const at = childPath(path, key);
  const spellings = SETTINGS_SPELLINGS[type] ?? {};
  const refused = REFUSED_SETTINGS_BY_TYPE[type] ?? {};
  const out: Mapping = {};
  for (const [name, value] of Object.entries(settings)) {
    const feature = refused[name];
    if (feature === undefined) out[spellings[name] ?? name] = value;
    else errors.push(refusal(childPath(at, name), feature));
  }
  if (type === 'http') return httpCommand({ ...step, [key]: out }, key, at, errors);
  if (type !== 'docker') return { ...step, [key]: out };
  return dockerShell({ ...step, [key]: dockerWorkingDir(out, at, errors) }, key, at, errors);
}

/**
 * 2.x docker's `shell` wraps the command as `<shell> -c <command>`: the step's shell, which the
 * step Pod runs the command with. Exec'd commands (a step naming containerName may exec) run
 * without a shell here, so there it is refused; beside the step's own shell it is an error.
 */
function dockerShell(step: Mapping, key: string, at: string, errors: DagIssue[]): Mapping {
  const { shell, ...settings } = step[key] as Mapping;
  if (shell === undefined) return step;
  const rest = { ...step, [key]: settings };
  // With image too, the step still execs into the named container when that one runs.
  if (settings.containerName !== undefined) {
    errors.push(refusal(childPath(at, 'shell'), 'docker with.shell with exec'));
    return rest;
  }
  if (step.shell !== undefined) {
    errors.push(issue(childPath(at, 'shell'), "the step's shell and with.shell both name the shell; use one of them"));
    return rest;
  }
  const words = containerShell(shell, childPath(at, 'shell'), errors);
  return words === undefined ? rest : { ...rest, shell: words };
}

/**
 * 2.x docker's `working_dir` is a shortcut for the container config's working directory, which
 * 1.x writes as `container.workingDir`. Dagu lets the container config's win when both are set;
 * here both is an error, so that neither is dropped without a word.
 */
function dockerWorkingDir(settings: Mapping, at: string, errors: DagIssue[]): Mapping {
  const { working_dir: workingDir, ...rest } = settings;
  if (workingDir === undefined) return settings;
  const container = rest.container ?? {};
  if (!isMapping(container)) return settings;
  if (containerEntry(container, 'workingDir') !== undefined) {
    errors.push(issue(childPath(at, 'working_dir'), 'container sets the working directory already; use one of them'));
    return rest;
  }
  return { ...rest, container: { ...container, workingDir } };
}

/** `with: {method: GET, url: ...}` is the 1.x command `GET ...`. */
function httpCommand(step: Mapping, key: string, at: string, errors: DagIssue[]): Mapping {
  const settings = step[key] as Mapping;
  const { method, url, ...rest } = settings;
  if (method === undefined && url === undefined) return step;
  if (step.command !== undefined) {
    errors.push(
      issue(
        childPath(at, method === undefined ? 'url' : 'method'),
        'write the request either as the command or as with.method and with.url, not both',
      ),
    );
    return step;
  }
  if (typeof method !== 'string' || method.trim() === '' || typeof url !== 'string' || url.trim() === '') {
    errors.push(
      issue(
        childPath(at, typeof method !== 'string' || method.trim() === '' ? 'method' : 'url'),
        'must be a non-empty string (with.method and with.url go together)',
      ),
    );
    return { ...step, [key]: rest };
  }
  return { ...step, [key]: rest, command: `${method.trim()} ${url.trim()}` };
}
