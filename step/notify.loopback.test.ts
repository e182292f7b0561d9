import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY_ENV, type NotifySpec } from '../core/runner/notify.ts';
import { startSmtpServer, type SmtpTestServer } from '../test/servers/smtp.ts';
import { captureIO } from '../test/step-io.ts';
import { runNotify } from './notify.ts';

let smtp: SmtpTestServer;
beforeAll(async () => {
  smtp = await startSmtpServer({ credentials: { username: 'dagu', password: 's3cret' } });
});
afterAll(async () => {
  await smtp.close();
});

describe('kubedag-step notify', () => {
  it('sends the HTML mail with ${VAR} in the addresses, subject and SMTP password expanded from its environment', async () => {
    const spec: NotifySpec = {
      from: 'kubedag@example.com',
      to: ['${ONCALL}', ' '],
      subject: '[ERR] ${DAG_NAME} (failed)',
      html: '<p>report</p>',
      attachments: [],
      smtp: { host: '127.0.0.1', port: String(smtp.port), username: 'dagu', password: '${SMTP_PASSWORD}' },
    };
    const io = captureIO({
      env: {
        [NOTIFY_ENV]: JSON.stringify(spec),
        ONCALL: 'oncall@example.com',
        DAG_NAME: 'etl',
        SMTP_PASSWORD: 's3cret',
      },
    });
    expect(await runNotify(io)).toBe(0);
    const [delivery] = smtp.deliveries;
    expect([delivery?.rcptTo, delivery?.mail.subject, String(delivery?.mail.html).trim(), delivery?.user]).toEqual([
      ['oncall@example.com'],
      '[ERR] etl (failed)',
      '<p>report</p>',
      'dagu',
    ]);
  });

  it('refuses a mail without a recipient, saying where to set one', async () => {
    const spec: NotifySpec = { from: 'a@x', to: [' '], subject: 's', html: '', attachments: [] };
    await expect(runNotify(captureIO({ env: { [NOTIFY_ENV]: JSON.stringify(spec) } }))).rejects.toThrow(
      'the mail has no recipient: set `to` in errorMail or infoMail',
    );
  });
});
