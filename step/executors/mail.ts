/**
 * The mail executor: a step that sends one message through the DAG's SMTP server. `sendMail`
 * is also what run notifications (mailOn) use, so both deliver the same way.
 */
import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import nodemailer from 'nodemailer';
import type { ExecutorSpec, SmtpSettings } from '../../core/runner/spec.ts';
import { expandSetting, type StepIO } from '../io.ts';
import { expandDeep } from './expand-settings.ts';
import {
  decideConnection,
  decideMessage,
  SMTP_TIMEOUT_MS,
  type MailMessage,
  type MailSettings,
  type SmtpConnection,
} from './mail-settings.ts';

export type { MailMessage } from './mail-settings.ts';

/** Runs a mail step; the exit code is 0 once the server accepted the message, else 1. */
export async function runMail(spec: ExecutorSpec, io: StepIO): Promise<number> {
  const settings = expandDeep(spec.config, io.env) as MailSettings;
  const message = decideMessage(settings, io.cwd);
  if (!message.ok) return failed(io, message.error);
  const { from, to, subject } = message.value;
  io.stdout.write(`sending mail\nfrom: ${from}\nto: ${to.join(', ')}\nsubject: ${subject}\n`);
  try {
    await sendMail(spec.smtp, message.value, io);
  } catch (error) {
    return failed(io, error instanceof Error ? error.message : String(error));
  }
  io.stdout.write('mail sent\n');
  return 0;
}

/**
 * Sends a message through the SMTP server of a DAG's `smtp` block (whose `${VAR}` references
 * expand from io.env). Rejects with an error that says what failed; a stop (io.signal) ends
 * the exchange.
 */
export async function sendMail(
  smtp: SmtpSettings | undefined,
  message: MailMessage,
  io: Pick<StepIO, 'env' | 'signal'>,
): Promise<void> {
  const connection = decideConnection(smtp && expandSmtp(smtp, io.env));
  if (!connection.ok) throw new Error(connection.error);
  // A missing attachment is the user's mistake; say so before talking to the server.
  for (const path of message.attachments) {
    await access(path, constants.R_OK).catch(() => {
      throw new Error(`attachment ${path} cannot be read`);
    });
  }
  io.signal.throwIfAborted();
  const transport = nodemailer.createTransport(transportOptions(connection.value));
  const stop = (): void => {
    transport.close();
  };
  io.signal.addEventListener('abort', stop, { once: true });
  try {
    await transport.sendMail({
      from: message.from,
      to: [...message.to],
      subject: message.subject,
      ...(message.contentType === 'text/html' ? { html: message.body } : { text: message.body }),
      attachments: message.attachments.map((path) => ({ filename: basename(path), path })),
    });
  } catch (error) {
    if (io.signal.aborted) throw new Error('mail not sent: the step was stopped', { cause: error });
    throw new Error(
      `mail not sent through ${connection.value.host}:${connection.value.port}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    io.signal.removeEventListener('abort', stop);
    transport.close();
  }
}

function transportOptions(connection: SmtpConnection): Parameters<typeof nodemailer.createTransport>[0] {
  return {
    host: connection.host,
    port: connection.port,
    secure: connection.implicitTls,
    ignoreTLS: connection.ignoreStartTls,
    requireTLS: connection.requireStartTls,
    // The certificate must name the host we dialled, as Go's crypto/tls insists.
    tls: { servername: connection.host },
    ...(connection.auth === undefined ? {} : { auth: connection.auth, authMethod: 'PLAIN' }),
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  };
}

function expandSmtp(smtp: SmtpSettings, env: Readonly<Record<string, string>>): SmtpSettings {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(smtp)) if (typeof value === 'string') out[key] = expandSetting(value, env);
  return out;
}

function failed(io: StepIO, message: string): number {
  io.stderr.write(`mail: ${message}\n`);
  return 1;
}
