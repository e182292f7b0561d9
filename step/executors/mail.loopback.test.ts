/**
 * The mail executor against a real SMTP server (smtp-server) on loopback: what arrives, and
 * how the session was secured and authenticated.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensurePki } from '../../cluster/pki.ts';
import type { ExecutorSpec, SmtpSettings } from '../../core/runner/spec.ts';
import { runMail } from './mail.ts';
import { startSmtpServer, type SmtpTestServer } from '../../test/servers/smtp.ts';
import { captureIO, temporaryDir } from '../../test/step-io.ts';

let dir: Awaited<ReturnType<typeof temporaryDir>>;
let tls: { key: string; cert: string };
const servers: SmtpTestServer[] = [];
const credentials = { username: 'mailer', password: 's3cret' };

beforeAll(async () => {
  dir = await temporaryDir('mail');
  // A CA of our own, trusted by this test process only, signs the server's certificate for localhost.
  const pki = await ensurePki(join(dir.path, 'pki'));
  tls = { key: await readFile(pki.nodeAgent.key, 'utf8'), cert: await readFile(pki.nodeAgent.cert, 'utf8') };
  setDefaultCACertificates([...getCACertificates('default'), await readFile(pki.ca.cert, 'utf8')]);
  await writeFile(join(dir.path, 'report.csv'), 'day,runs\nmon,3\n');
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});
afterAll(() => dir.remove());

async function server(options: Parameters<typeof startSmtpServer>[0]): Promise<SmtpTestServer> {
  const started = await startSmtpServer(options);
  servers.push(started);
  return started;
}

function mailStep(config: Record<string, unknown>, smtp: SmtpSettings): ExecutorSpec {
  return { type: 'mail', config, smtp };
}

describe('runMail', () => {
  it('delivers message, recipients, subject, HTML body and attachments over plain SMTP without trying STARTTLS', async () => {
    const smtp = await server({ tls });
    const io = captureIO({ cwd: dir.path, env: { TEAM: 'ops', SMTP_PORT: String(smtp.port) } });
    const code = await runMail(
      mailStep(
        {
          from: 'kubedag@example.com',
          to: ['${TEAM}@example.com', 'lead@example.com'],
          subject: 'Report for ${TEAM}',
          message: 'Runs:\nall green',
          attachments: ['report.csv'],
        },
        { host: '127.0.0.1', port: '${SMTP_PORT}' },
      ),
      io,
    );
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(io.out()).toContain('to: ops@example.com, lead@example.com');
    const [delivery] = smtp.deliveries;
    expect(delivery).toMatchObject({
      mailFrom: 'kubedag@example.com',
      rcptTo: ['ops@example.com', 'lead@example.com'],
      secure: false,
    });
    expect(delivery?.mail.subject).toBe('Report for ops');
    expect(delivery?.mail.html).toContain('Runs:<br />all green');
    expect(delivery?.mail.attachments.map((a) => ({ name: a.filename, text: a.content.toString('utf8') }))).toEqual([
      { name: 'report.csv', text: 'day,runs\nmon,3\n' },
    ]);
    expect(smtp.logins).toEqual([]);
  });

  it('sends text/plain as written', async () => {
    const smtp = await server({});
    const io = captureIO({ cwd: dir.path });
    const code = await runMail(
      mailStep(
        {
          from: 'a@example.com',
          to: 'b@example.com',
          subject: 's',
          message: 'line one\nline two',
          contentType: 'text/plain',
        },
        { host: '127.0.0.1', port: String(smtp.port) },
      ),
      io,
    );
    expect(code).toBe(0);
    const mail = smtp.deliveries[0]?.mail;
    expect({ type: mail?.headers.get('content-type'), text: mail?.text?.trimEnd(), html: mail?.html }).toMatchObject({
      type: { value: 'text/plain' },
      text: 'line one\nline two',
      html: false,
    });
  });

  it('upgrades with STARTTLS before it authenticates with PLAIN when it has credentials', async () => {
    const smtp = await server({ tls, credentials });
    const io = captureIO({ cwd: dir.path, env: { SMTP_PASSWORD: credentials.password } });
    const code = await runMail(
      mailStep(
        { from: 'a@example.com', to: 'b@example.com', subject: 'secured', message: 'hi' },
        { host: 'localhost', port: String(smtp.port), username: credentials.username, password: '${SMTP_PASSWORD}' },
      ),
      io,
    );
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(smtp.logins).toEqual([{ method: 'PLAIN', username: 'mailer', password: 's3cret', secure: true }]);
    expect(smtp.deliveries.map((d) => ({ secure: d.secure, user: d.user }))).toEqual([
      { secure: true, user: 'mailer' },
    ]);
  });

  it('authenticates in the clear to a loopback server that offers no STARTTLS, as Go PLAIN auth allows', async () => {
    const smtp = await server({ credentials });
    const io = captureIO({ cwd: dir.path });
    const code = await runMail(
      mailStep(
        { from: 'a@example.com', to: 'b@example.com', message: 'hi' },
        { host: '127.0.0.1', port: String(smtp.port), ...credentialsOf() },
      ),
      io,
    );
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(smtp.logins.map((l) => l.secure)).toEqual([false]);
  });

  it("fails the step with the server's answer when the credentials are wrong", async () => {
    const smtp = await server({ tls, credentials });
    const io = captureIO({ cwd: dir.path });
    const code = await runMail(
      mailStep(
        { from: 'a@example.com', to: 'b@example.com' },
        { host: 'localhost', port: String(smtp.port), username: 'mailer', password: 'wrong' },
      ),
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(/^mail: mail not sent through localhost:\d+: .*invalid credentials/);
    expect(smtp.deliveries).toEqual([]);
  });

  it('speaks TLS from the first byte on port 465', async (context) => {
    // Port 465 is privileged; CI runs as root, as the node agent needs.
    if (process.getuid?.() !== 0) context.skip('binding port 465 needs root');
    const smtp = await server({ tls, secure: true, credentials, port: 465 });
    const io = captureIO({ cwd: dir.path });
    const code = await runMail(
      mailStep(
        { from: 'a@example.com', to: 'b@example.com', subject: 'implicit' },
        { host: 'localhost', port: '465', ...credentialsOf() },
      ),
      io,
    );
    expect({ code, err: io.err() }).toEqual({ code: 0, err: '' });
    expect(smtp.deliveries.map((d) => ({ subject: d.mail.subject, secure: d.secure }))).toEqual([
      { subject: 'implicit', secure: true },
    ]);
  });

  it('refuses an attachment it cannot read before it talks to the server', async () => {
    const smtp = await server({});
    const io = captureIO({ cwd: dir.path });
    const code = await runMail(
      mailStep(
        { from: 'a@example.com', to: 'b@example.com', attachments: ['missing.log'] },
        { host: '127.0.0.1', port: String(smtp.port) },
      ),
      io,
    );
    expect({ code, err: io.err() }).toEqual({
      code: 1,
      err: `mail: attachment ${join(dir.path, 'missing.log')} cannot be read\n`,
    });
    expect(smtp.deliveries).toEqual([]);
  });

  it('refuses a step when the DAG has no smtp block', async () => {
    const io = captureIO({ cwd: dir.path });
    const code = await runMail({ type: 'mail', config: { to: 'b@example.com' } }, io);
    expect(code).toBe(1);
    expect(io.err()).toContain('smtp.host is not set');
  });
});

function credentialsOf(): SmtpSettings {
  return { username: credentials.username, password: credentials.password };
}
