/**
 * `kubedag-step notify`: sends the one message in $KUBEDAG_NOTIFY (a NotifySpec,
 * core/runner/notify.ts) through the DAG's SMTP server with the mail executor's sendMail, so
 * notifications and mail steps deliver the same way. `${VAR}` in the sender, recipients and
 * subject expands from the Pod's environment, as the SMTP settings do in sendMail.
 */
import { NOTIFY_ENV, type NotifySpec } from '../core/runner/notify.ts';
import { sendMail } from './executors/mail.ts';
import { expandSetting, type StepIO } from './io.ts';

export function parseNotifySpec(text: string | undefined): NotifySpec {
  if (text === undefined || text === '')
    throw new Error(`${NOTIFY_ENV} is not set: it carries the mail to send as JSON`);
  const spec = JSON.parse(text) as Partial<NotifySpec> | null;
  if (
    spec === null ||
    typeof spec !== 'object' ||
    !Array.isArray(spec.to) ||
    typeof spec.subject !== 'string' ||
    typeof spec.html !== 'string'
  ) {
    throw new Error(`${NOTIFY_ENV} is not a mail notification (to, subject and html are required)`);
  }
  return {
    from: spec.from ?? '',
    to: spec.to,
    subject: spec.subject,
    html: spec.html,
    attachments: spec.attachments ?? [],
    ...(spec.smtp === undefined ? {} : { smtp: spec.smtp }),
  };
}

/** Sends the notification; 0 once the server took it, else an error says why. */
export async function runNotify(io: StepIO): Promise<number> {
  const spec = parseNotifySpec(io.env[NOTIFY_ENV]);
  const expand = (text: string): string => expandSetting(text, io.env).trim();
  const to = spec.to.map(expand).filter((address) => address !== '');
  if (to.length === 0) throw new Error('the mail has no recipient: set `to` in errorMail or infoMail');
  const message = {
    from: expand(spec.from),
    to,
    subject: expand(spec.subject),
    body: spec.html,
    contentType: 'text/html' as const,
    attachments: spec.attachments,
  };
  io.stdout.write(`sending mail\nfrom: ${message.from}\nto: ${to.join(', ')}\nsubject: ${message.subject}\n`);
  await sendMail(spec.smtp, message, io);
  io.stdout.write('mail sent\n');
  return 0;
}
