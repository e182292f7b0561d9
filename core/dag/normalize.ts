/**
 * A shape-checked DAG document into the canonical Dag: defaults applied, every spelling
 * reduced to one. Steps are normalised in steps.ts; cross-field rules live in validate.ts.
 */
import { dagOptionsFromFile } from './dag-options.ts';
import { conditionsFromFile, envFromFile, ENV_NAME, labelsFromFile, listFromFile, shellFromFile } from './fields.ts';
import { childPath, issue, type DagIssue } from './issues.ts';
import { dagKubernetes } from './kubernetes-levels.ts';
import { checkSshSettings } from './remote-executor-checks.ts';
import { DEFAULTS, type Dag, type MailConfig, type Secret } from './model.ts';
import { otelFromFile } from './otel.ts';
import { paramsFromFile } from './params.ts';
import { parseSchedules } from './schedule.ts';
import type { DagFile } from './schema.ts';
import type { Diagnostics } from './issues.ts';
import { optional } from './optional.ts';
import type { StepDraft } from './step.ts';
import { normalizeHandlers, normalizeSteps } from './steps.ts';

export interface Normalized {
  readonly dag: Dag;
  /** Steps and handlers with the paths they were written at, for validation messages. */
  readonly drafts: StepDraft[];
}

export const SECRET_PROVIDERS = ['env', 'file'] as const;

/** `dialect`: the file's; a 2.x file's docker steps with their own settings leave the DAG-level container. */
export function normalizeDag(
  file: DagFile,
  name: string,
  diagnostics: Diagnostics,
  dialect: '1.x' | '2.x' = '1.x',
): Normalized {
  const { errors } = diagnostics;
  const type = file.type ?? DEFAULTS.type;
  const workerSelector = labelsFromFile(file.workerSelector);
  const kubernetes = dagKubernetes(file, workerSelector, diagnostics);
  const context = {
    dagSsh: file.ssh !== undefined,
    dagContainer: file.container !== undefined,
    ownDockerSettingsWin: dialect === '2.x',
    kubernetes,
    workerSelector,
  };
  const { steps } = normalizeSteps(file.steps, type, context, diagnostics);
  const handlers = normalizeHandlers(file.handlerOn, context, diagnostics);
  const schedule = parseSchedules(file.schedule, 'schedule');
  errors.push(...schedule.errors);
  const params = paramsFromFile(file.params, 'params');
  errors.push(...params.errors, ...duplicateParams(params.params.entries.map((p) => p.name)));
  if (file.container !== undefined && file.ssh !== undefined)
    errors.push(issue('ssh', 'container and ssh cannot both be set'));
  // Kubernetes never runs an image's HEALTHCHECK; Dagu too falls back to running without one.
  if (file.container?.waitFor === 'healthy')
    diagnostics.warnings.push(
      issue(
        'container.waitFor',
        "healthy waits for the container Pod's Ready condition; Kubernetes does not run an image's HEALTHCHECK, so it comes as soon as the container runs",
      ),
    );
  if (file.ssh !== undefined) errors.push(...checkSshSettings(file.ssh, 'ssh'));
  const dag: Dag = {
    name,
    ...optional('group', trimmed(file.group)),
    ...optional('description', trimmed(file.description)),
    tags: [...new Set(listFromFile(file.tags, true).map((tag) => tag.toLowerCase()))],
    type,
    ...optional('shell', shellFromFile(file.shell, 'shell', errors)),
    ...optional('workingDir', file.workingDir),
    dotenv: file.dotenv === undefined ? DEFAULTS.dotenv : listFromFile(file.dotenv),
    schedule: schedule.schedules,
    skipIfSuccessful: file.skipIfSuccessful ?? false,
    ...optional('logDir', file.logDir),
    env: envFromFile(file.env, 'env', errors),
    params: params.params,
    steps: steps.map((d) => d.step),
    handlerOn: Object.fromEntries(Object.entries(handlers).map(([event, draft]) => [event, draft.step])),
    preconditions: conditionsFromFile(file.preconditions, file.precondition, '', errors),
    ...limits(file),
    ...dagOptionsFromFile(file, errors),
    ...optional('queue', trimmed(file.queue)),
    workerSelector,
    ...optional('kubernetes', kubernetes),
    secrets: secretsOf(file.secrets, errors),
    ...switches(file),
    ...integrations(file, errors),
  };
  return { dag, drafts: [...steps, ...Object.values(handlers)] };
}

/** Booleans with their defaults. */
function switches(file: DagFile): Pick<Dag, 'runConfig' | 'mailOn'> {
  return {
    runConfig: {
      disableParamEdit: file.runConfig?.disableParamEdit ?? false,
      disableRunIdEdit: file.runConfig?.disableRunIdEdit ?? false,
    },
    mailOn: {
      success: file.mailOn?.success ?? false,
      failure: file.mailOn?.failure ?? false,
      wait: file.mailOn?.wait ?? false,
    },
  };
}

/** Settings for mail, containers, SSH, registries and tracing, passed on to the runtime. */
function integrations(file: DagFile, errors: DagIssue[]): Partial<Dag> {
  const { smtp, ssh } = file;
  return {
    ...optional('errorMail', file.errorMail && mailOf(file.errorMail)),
    ...optional('infoMail', file.infoMail && mailOf(file.infoMail)),
    ...optional('waitMail', file.waitMail && mailOf(file.waitMail)),
    ...optional('smtp', smtp && { ...smtp, port: smtp.port === undefined ? undefined : String(smtp.port) }),
    ...optional('s3', file.s3),
    ...optional('container', file.container && containerOf(file.container, errors)),
    ...optional('ssh', ssh && { ...ssh, port: String(ssh.port ?? 22), strictHostKey: ssh.strictHostKey ?? true }),
    ...optional('registryAuths', file.registryAuths),
    ...optional('otel', file.otel && otelFromFile(file.otel, errors)),
  };
}

function trimmed(value: string | undefined): string | undefined {
  const text = value?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** Counts and limits; 0 means "the default" where the reference treats it so. */
function limits(
  file: DagFile,
): Pick<
  Dag,
  | 'timeoutSec'
  | 'delaySec'
  | 'restartWaitSec'
  | 'histRetentionDays'
  | 'maxActiveRuns'
  | 'maxActiveSteps'
  | 'maxCleanUpTimeSec'
  | 'maxOutputSize'
> {
  const orDefault = (value: number | undefined, fallback: number): number =>
    value === undefined || value === 0 ? fallback : value;
  return {
    timeoutSec: file.timeoutSec ?? 0,
    delaySec: file.delaySec ?? 0,
    restartWaitSec: file.restartWaitSec ?? 0,
    // Dagu keeps history by days by default, and by count instead when hist_retention_runs is set.
    histRetentionDays:
      file.histRetentionRuns === undefined ? orDefault(file.histRetentionDays, DEFAULTS.histRetentionDays) : 0,
    maxActiveRuns: orDefault(file.maxActiveRuns, DEFAULTS.maxActiveRuns),
    maxActiveSteps: file.maxActiveSteps ?? DEFAULTS.maxActiveSteps,
    maxCleanUpTimeSec: orDefault(file.maxCleanUpTimeSec, DEFAULTS.maxCleanUpTimeSec),
    maxOutputSize: file.maxOutputSize ?? DEFAULTS.maxOutputSize,
  };
}

function duplicateParams(names: readonly string[]): DagIssue[] {
  const seen = new Set<string>();
  const errors: DagIssue[] = [];
  for (const name of names) {
    if (seen.has(name)) errors.push(issue('params', `parameter "${name}" is defined more than once`));
    seen.add(name);
  }
  return errors;
}

function secretsOf(input: DagFile['secrets'], errors: DagIssue[]): Secret[] {
  const seen = new Set<string>();
  return (input ?? []).map((secret, i) => {
    const path = childPath('secrets', i);
    if (!ENV_NAME.test(secret.name))
      errors.push(issue(childPath(path, 'name'), `"${secret.name}" is not a valid variable name`));
    else if (seen.has(secret.name))
      errors.push(issue(childPath(path, 'name'), `secret "${secret.name}" is defined more than once`));
    seen.add(secret.name);
    if (!(SECRET_PROVIDERS as readonly string[]).includes(secret.provider)) {
      errors.push(
        issue(
          childPath(path, 'provider'),
          `unknown provider "${secret.provider}"; known providers are ${SECRET_PROVIDERS.join(', ')}`,
        ),
      );
    }
    if (secret.key.trim() === '') errors.push(issue(childPath(path, 'key'), 'is empty'));
    return { name: secret.name, provider: secret.provider, key: secret.key, options: labelsFromFile(secret.options) };
  });
}

function mailOf(input: NonNullable<DagFile['errorMail']>): MailConfig {
  return {
    ...optional('from', trimmed(input.from)),
    to: listFromFile(input.to),
    ...optional('prefix', input.prefix),
    attachLogs: input.attachLogs ?? false,
  };
}

function containerOf(input: NonNullable<DagFile['container']>, errors: DagIssue[]): Record<string, unknown> {
  if (trimmed(input.image) === undefined)
    errors.push(issue(childPath('container', 'image'), 'is required when container is set'));
  if (input.startup === 'command' && (input.command ?? []).length === 0)
    errors.push(issue(childPath('container', 'command'), 'is required when startup is "command"'));
  const { workDir, ...rest } = input;
  const workingDir = input.workingDir ?? workDir;
  return { ...rest, ...optional('workingDir', workingDir) };
}
