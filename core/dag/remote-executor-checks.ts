/**
 * Load-time checks of the mail and ssh executors' settings: the forms their values take, so
 * that a mistake is reported with its path before a run rather than by a failed step Pod.
 * Values with `${VAR}` references are checked once expanded, by the step runner.
 */
import { childPath, issue, issueIf, type DagIssue } from './issues.ts';
import { configKeyProblem, dnsSubdomainProblem } from './kube-names.ts';

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
  ];
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
