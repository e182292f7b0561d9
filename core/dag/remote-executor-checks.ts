/**
 * Load-time checks of the mail, ssh and jq executors' settings: the forms their values take, so
 * that a mistake is reported with its path before a run rather than by a failed step Pod.
 * Values with `${VAR}` references are checked once expanded, by the step runner.
 */
import { childPath, issue, issueIf, type DagIssue } from './issues.ts';
import { configKeyProblem, dnsSubdomainProblem } from './kube-names.ts';
import type { Step } from './model.ts';
import { durationMs } from './otel.ts';

const MAIL_CONTENT_TYPES = ['text/html', 'text/plain'];

const hasReference = (value: string): boolean => value.includes('$');

export function checkMailSettings(config: Readonly<Record<string, unknown>>, configPath: string): DagIssue[] {
  const at = (key: string): string => childPath(configPath, key);
  const { to, attachments, contentType } = config;
  return [
    ...(isTextOrTextList(to) &&
    (typeof to === 'string' ? to.trim() !== '' : to.some((address) => address.trim() !== ''))
      ? []
      : [issue(at('to'), 'the mail executor needs to: an address or a list of addresses')]),
    ...(attachments === undefined || isTextOrTextList(attachments)
      ? []
      : [issue(at('attachments'), 'attachments must be a path or a list of paths')]),
    ...['from', 'subject', 'message'].flatMap((key) =>
      config[key] === undefined || typeof config[key] === 'string' ? [] : [issue(at(key), `${key} must be text`)],
    ),
    ...checkContentType(contentType, at('contentType')),
  ];
}

function checkContentType(value: unknown, path: string): DagIssue[] {
  if (value === undefined) return [];
  if (typeof value !== 'string') return [issue(path, 'contentType must be text/html or text/plain')];
  if (hasReference(value) || MAIL_CONTENT_TYPES.includes(value.trim().toLowerCase())) return [];
  return [issue(path, `contentType "${value}" is not supported; use text/html (the default) or text/plain`)];
}

/** The settings of an ssh step or of the DAG-level ssh block. */
export function checkSshSettings(config: Readonly<Record<string, unknown>>, configPath: string): DagIssue[] {
  const at = (key: string): string => childPath(configPath, key);
  return [
    ...checkKey(config.key, at('key')),
    ...checkPort(config.port, at('port')),
    ...checkFlag(config.strictHostKey, at('strictHostKey')),
    ...checkText(config.shell, at('shell')),
    ...(config.shellArgs === undefined ||
    (Array.isArray(config.shellArgs) && config.shellArgs.every((a) => typeof a === 'string'))
      ? []
      : [issue(at('shellArgs'), 'must be a list of words')]),
    // Dagu drops them without a shell (the default /bin/sh then runs without them).
    ...(config.shellArgs !== undefined && (typeof config.shell !== 'string' || config.shell.trim() === '')
      ? [issue(at('shellArgs'), 'go with shell (the program they are given to)')]
      : []),
    ...checkTimeout(config.timeout, at('timeout')),
    ...checkBastion(config.bastion, at('bastion')),
  ];
}

/** Dagu's connection timeout: a Go duration; empty and 0 mean its default, 30s. */
function checkTimeout(value: unknown, path: string): DagIssue[] {
  if (value === undefined || (typeof value === 'string' && (value.trim() === '' || hasReference(value)))) return [];
  const ms = typeof value === 'string' ? durationMs(value.trim()) : undefined;
  return ms !== undefined && ms >= 0
    ? []
    : [issue(path, `must be a duration such as 30s or 1m, not ${JSON.stringify(value)}`)];
}

const BASTION_KEYS = ['host', 'port', 'user', 'key', 'password'];

/** The jump host: a mapping of host and user, with port and a key path or password. */
function checkBastion(value: unknown, path: string): DagIssue[] {
  if (value === undefined) return [];
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [issue(path, 'must be a mapping (host, port, user, key, password)')];
  const bastion = value as Record<string, unknown>;
  const at = (key: string): string => childPath(path, key);
  return [
    ...Object.keys(bastion)
      .filter((key) => !BASTION_KEYS.includes(key))
      .map((key) => issue(at(key), `unknown key (a bastion takes ${BASTION_KEYS.join(', ')})`)),
    ...(['host', 'user'] as const).flatMap((key) =>
      typeof bastion[key] === 'string' && bastion[key].trim() !== ''
        ? []
        : [issue(at(key), `the bastion needs ${key}`)],
    ),
    ...checkPort(bastion.port, at('port')),
    ...checkText(bastion.key, at('key'), 'must be the path of a private key in the step container'),
    ...checkText(bastion.password, at('password')),
  ];
}

function checkText(value: unknown, path: string, message = 'must be text'): DagIssue[] {
  return value === undefined || typeof value === 'string' ? [] : [issue(path, message)];
}

/** A jq step's JSON input: the script or the file named by input, one of them. */
export function checkJq(step: Step, path: string, configPath: string): DagIssue[] {
  const { input } = step.executor.config;
  if (input === undefined)
    return step.script === undefined
      ? [
          issue(
            path,
            'the jq executor needs script (the JSON input) or input (a JSON file); command is the filter, "." when left out',
          ),
        ]
      : [];
  if (typeof input !== 'string' || input.trim() === '')
    return [issue(childPath(configPath, 'input'), 'must be the path of a JSON file')];
  return step.script === undefined
    ? []
    : [issue(childPath(configPath, 'input'), 'input and script both give the JSON input; use one of them')];
}

function checkKey(key: unknown, path: string): DagIssue[] {
  if (key === undefined || typeof key === 'string') return [];
  const ref =
    typeof key === 'object' && key !== null && !Array.isArray(key)
      ? (key as Record<string, unknown>).secretKeyRef
      : undefined;
  if (typeof ref !== 'object' || ref === null || Object.keys(key as object).length !== 1)
    return [issue(path, 'key must be a path or {secretKeyRef: {name, key}}')];
  const { name, key: secretKey } = ref as Record<string, unknown>;
  const refPath = childPath(path, 'secretKeyRef');
  return [
    ...(typeof name === 'string'
      ? issueIf(childPath(refPath, 'name'), dnsSubdomainProblem(name))
      : [issue(childPath(refPath, 'name'), 'needs the name of a Secret')]),
    ...(typeof secretKey === 'string'
      ? issueIf(childPath(refPath, 'key'), configKeyProblem(secretKey))
      : [issue(childPath(refPath, 'key'), 'needs the key in the Secret that holds the private key')]),
  ];
}

function checkPort(port: unknown, path: string): DagIssue[] {
  if (port === undefined || (typeof port === 'string' && (port.trim() === '' || hasReference(port)))) return [];
  const number = typeof port === 'number' ? port : typeof port === 'string' ? Number(port) : Number.NaN;
  // Dagu reads 0 as the default port 22.
  return Number.isInteger(number) && number >= 0 && number <= 65535
    ? []
    : [issue(path, `port must be a number from 1 to 65535, not ${JSON.stringify(port)}`)];
}

function checkFlag(value: unknown, path: string): DagIssue[] {
  if (value === undefined || typeof value === 'boolean') return [];
  if (
    typeof value === 'string' &&
    (hasReference(value) || ['true', 'false', '1', '0', 't', 'f'].includes(value.trim().toLowerCase()))
  )
    return [];
  return [issue(path, 'must be true or false')];
}

function isTextOrTextList(value: unknown): value is string | string[] {
  return typeof value === 'string' || (Array.isArray(value) && value.every((item) => typeof item === 'string'));
}
