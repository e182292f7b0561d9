/**
 * What `kubedag-step --help` says: the commands and the variables each reads, declared here as a
 * settings table (core/settings.ts) over the variable names the operator and the runner share
 * (core/runner/), so the help cannot name a variable the runner does not read. The operator sets
 * every one of them in the step Pod; a person meets them only when debugging a step.
 */
import { NOTIFY_ENV } from '../core/runner/notify.ts';
import { EXECUTOR_ENV, SSH_KEY_ENV } from '../core/runner/spec.ts';
import { TELEMETRY_ENV } from '../core/runner/telemetry.ts';
import type { HelpPage } from '../core/settings-help.ts';
import { setting } from '../core/settings.ts';

const json = (variable: string, description: string) =>
  setting<string | undefined>({
    variables: [variable],
    value: 'JSON',
    default: undefined,
    defaultText: 'none: set by the operator',
    description,
    read: (text) => text,
  });

export const STEP_SETTINGS = {
  executor: json(
    EXECUTOR_ENV,
    'The executor of the step (http, jq, mail, ssh or container-exec) and its config, for `executor`.',
  ),
  telemetry: json(TELEMETRY_ENV, 'The finished run’s spans and where to export them (OTLP), for `telemetry`.'),
  notify: json(NOTIFY_ENV, 'The mail about a run or a failed step and the SMTP settings, for `notify`.'),
  sshKey: setting<string | undefined>({
    variables: [SSH_KEY_ENV],
    value: 'KEY',
    default: undefined,
    defaultText: 'none: set by the operator from a Secret',
    description: 'The private key of an ssh step whose key names a Secret.',
    read: (text) => text,
  }),
};

/** The commands, in the order help lists them; step/main.ts runs one for each. */
export const STEP_COMMANDS = [
  {
    name: 'executor',
    summary: `carry out the executor in $${EXECUTOR_ENV} with the step's streams and environment; exit with the step's exit code`,
  },
  { name: 'telemetry', summary: `export a finished run's spans ($${TELEMETRY_ENV})` },
  { name: 'notify', summary: `send the mail in $${NOTIFY_ENV}` },
] as const;

export type StepCommand = (typeof STEP_COMMANDS)[number]['name'];

export const STEP_HELP: HelpPage = {
  usage: `kubedag-step ${STEP_COMMANDS.map((c) => c.name).join(' | ')}`,
  about:
    "Kubedag's step runner, inside step Pods: the Pod's shell runner starts it, so tagging, stop forwarding, preconditions and outputs work as for any command.",
  commands: STEP_COMMANDS,
  settings: STEP_SETTINGS,
  notes: [
    'Exit status: the step’s own; 1 for an error (one line on stderr); 2 for a wrong command; 143 or 130 when stopped by SIGTERM or SIGINT.',
  ],
};
