/**
 * Decisions of the mail executor as pure functions over plain data: which SMTP connection
 * (TLS, authentication) a DAG's `smtp` block asks for, and what message a mail step's settings
 * describe. Both follow Dagu 1.24.11 (internal/common/mailer, internal/runtime/builtin/mail)
 * where it delivers, and say plainly where Kubedag goes further.
 */
import { isAbsolute, resolve } from 'node:path';
import type { SmtpSettings } from '../../core/runner/spec.ts';

/** Dagu gives every SMTP exchange 30 s. */
export const SMTP_TIMEOUT_MS = 30_000;

/** The port on which SMTP servers expect TLS from the first byte (RFC 8314 "submissions"). */
const IMPLICIT_TLS_PORT = 465;

/** Hosts where Go's PLAIN authentication, which Dagu uses, accepts a connection without TLS. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

export const CONTENT_TYPES = ['text/html', 'text/plain'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

export interface SmtpConnection {
  readonly host: string;
  readonly port: number;
  /** TLS from the first byte (port 465). */
  readonly implicitTls: boolean;
  /** Never upgrade with STARTTLS, even when the server offers it. */
  readonly ignoreStartTls: boolean;
  /** Fail unless the server upgrades with STARTTLS before credentials are sent. */
  readonly requireStartTls: boolean;
  readonly auth?: { readonly user: string; readonly pass: string };
}

export type Decided<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

const fail = (error: string): Decided<never> => ({ ok: false, error });

/**
 * The connection an already expanded `smtp` block asks for. Dagu sends without credentials
 * over plain SMTP and never tries STARTTLS then; with a username or password it upgrades with
 * STARTTLS when the server offers it (checking the certificate against the host name) and
 * authenticates with PLAIN, which refuses to send credentials in the clear except to a
 * loopback host. Port 465 speaks TLS from the start: Dagu cannot deliver there at all, so
 * using implicit TLS on it changes nothing that worked.
 */
export function decideConnection(smtp: SmtpSettings | undefined): Decided<SmtpConnection> {
  const address = decideAddress(smtp);
  if (!address.ok) return address;
  const { host, port } = address.value;
  const user = smtp?.username ?? '';
  const pass = smtp?.password ?? '';
  const implicitTls = port === IMPLICIT_TLS_PORT;
  if (user === '' && pass === '')
    return { ok: true, value: { host, port, implicitTls, ignoreStartTls: !implicitTls, requireStartTls: false } };
  const loopback = LOOPBACK_HOSTS.includes(host.toLowerCase());
  return {
    ok: true,
    value: {
      host,
      port,
      implicitTls,
      ignoreStartTls: false,
      requireStartTls: !implicitTls && !loopback,
      auth: { user, pass },
    },
  };
}

function decideAddress(smtp: SmtpSettings | undefined): Decided<{ readonly host: string; readonly port: number }> {
  const host = smtp?.host?.trim() ?? '';
  if (host === '')
    return fail(
      'smtp.host is not set: mail needs the DAG-level smtp block (host, port, and username/password if the server wants them)',
    );
  const portText = smtp?.port?.trim() ?? '';
  if (portText === '') return fail('smtp.port is not set');
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return fail(`smtp.port "${portText}" is not a port number (1-65535)`);
  return { ok: true, value: { host, port } };
}

export interface MailMessage {
  readonly from: string;
  readonly to: readonly string[];
  readonly subject: string;
  /** The body as it goes on the wire (already turned into HTML for text/html). */
  readonly body: string;
  readonly contentType: ContentType;
  /** Absolute paths of files to attach. */
  readonly attachments: readonly string[];
}

/** A mail step's settings, each `${VAR}` already expanded. */
export interface MailSettings {
  readonly from?: unknown;
  readonly to?: unknown;
  readonly subject?: unknown;
  readonly message?: unknown;
  readonly attachments?: unknown;
  readonly contentType?: unknown;
}

/**
 * The message a mail step's settings describe. `to` is an address or a list (empty entries
 * dropped, as Dagu does); `attachments` are paths relative to the step's working directory.
 * Dagu 1.24.11 sends every body as HTML, turning the line breaks of text that is not a whole
 * HTML document into `<br />`; that stays the default, and `contentType: text/plain` sends the
 * text as written.
 */
export function decideMessage(settings: MailSettings, cwd: string): Decided<MailMessage> {
  const to = recipients(settings.to);
  if (typeof to === 'string') return fail(to);
  for (const key of ['from', 'subject', 'message', 'contentType'] as const) {
    const value = settings[key];
    if (value !== undefined && typeof value !== 'string') return fail(`${key} must be text, not ${describe(value)}`);
  }
  const attachments = textList(settings.attachments);
  if (attachments === undefined) return fail('attachments must be a path or a list of paths');
  const contentType = ((settings.contentType as string | undefined)?.trim().toLowerCase() ?? '') || 'text/html';
  if (!(CONTENT_TYPES as readonly string[]).includes(contentType))
    return fail(`contentType "${contentType}" is not supported; use ${CONTENT_TYPES.join(' or ')}`);
  const message = (settings.message as string | undefined) ?? '';
  return {
    ok: true,
    value: {
      from: (settings.from as string | undefined) ?? '',
      to,
      subject: (settings.subject as string | undefined) ?? '',
      body: contentType === 'text/html' ? htmlBody(message) : message,
      contentType: contentType as ContentType,
      attachments: attachments
        .filter((path) => path !== '')
        .map((path) => (isAbsolute(path) ? path : resolve(cwd, path))),
    },
  };
}

function recipients(to: unknown): readonly string[] | string {
  const list = textList(to);
  if (list === undefined) return `to must be an address or a list of addresses, not ${describe(to)}`;
  const addresses = list.map((address) => address.trim()).filter((address) => address !== '');
  return addresses.length === 0 ? 'to names no recipient' : addresses;
}

function textList(value: unknown): readonly string[] | undefined {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return undefined;
}

/** Line breaks of plain text become `<br />` unless the text is a whole HTML document (Dagu's rule). */
export function htmlBody(message: string): string {
  if (/^<!doctype html/i.test(message.trim())) return message;
  // Dagu also turns the two-character escapes `\n` and `\r` into breaks, as YAML users often write them.
  return message.replace(/\\r\\n|\r\n|\\r|\\n|\r|\n/g, '<br />');
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  return value === null ? 'null' : typeof value === 'object' ? 'a mapping' : `${typeof value} ${JSON.stringify(value)}`;
}
