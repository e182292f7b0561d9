import { describe, expect, it } from 'vitest';
import { decideConnection, decideMessage, htmlBody, type MailSettings, type SmtpConnection } from './mail-settings.ts';
import type { SmtpSettings } from '../../core/runner/spec.ts';

describe('decideConnection', () => {
  const cases: { name: string; smtp: SmtpSettings | undefined; want: Partial<SmtpConnection> | string }[] = [
    {
      name: 'without credentials mail goes in the clear and STARTTLS is never tried',
      smtp: { host: 'mail.example.com', port: '25' },
      want: { implicitTls: false, ignoreStartTls: true, requireStartTls: false, auth: undefined },
    },
    {
      name: 'with credentials a remote server must upgrade with STARTTLS before they are sent',
      smtp: { host: 'mail.example.com', port: '587', username: 'u', password: 'p' },
      want: { implicitTls: false, ignoreStartTls: false, requireStartTls: true, auth: { user: 'u', pass: 'p' } },
    },
    {
      name: 'with credentials a loopback server may take them in the clear',
      smtp: { host: 'localhost', port: '2525', username: 'u', password: 'p' },
      want: { ignoreStartTls: false, requireStartTls: false },
    },
    {
      name: 'a password alone still authenticates, as Dagu does',
      smtp: { host: '127.0.0.1', port: '25', password: 'p' },
      want: { auth: { user: '', pass: 'p' } },
    },
    {
      name: 'port 465 speaks TLS from the first byte',
      smtp: { host: 'mail.example.com', port: '465', username: 'u', password: 'p' },
      want: { implicitTls: true, requireStartTls: false },
    },
    {
      name: 'port 465 without credentials is TLS too',
      smtp: { host: 'mail.example.com', port: '465' },
      want: { implicitTls: true, ignoreStartTls: false },
    },
    { name: 'a missing smtp block is refused', smtp: undefined, want: 'smtp.host is not set' },
    { name: 'a missing port is refused', smtp: { host: 'mail.example.com' }, want: 'smtp.port is not set' },
    {
      name: 'a port that is not a number is refused',
      smtp: { host: 'mail.example.com', port: 'smtp' },
      want: 'smtp.port "smtp" is not a port number',
    },
  ];
  it.each(cases)('$name', ({ smtp, want }) => {
    const got = decideConnection(smtp);
    if (typeof want === 'string') expect(got.ok ? 'accepted' : got.error).toContain(want);
    // `auth: undefined` in a case means: no credentials are sent.
    else expect(got.ok ? { auth: undefined, ...got.value } : got.error).toMatchObject(want);
  });
});

describe('decideMessage', () => {
  const cases: { name: string; settings: MailSettings; want: Record<string, unknown> | string }[] = [
    { name: 'one address in to is one recipient', settings: { to: 'a@example.com' }, want: { to: ['a@example.com'] } },
    {
      name: 'a list in to drops empty entries',
      settings: { to: ['a@example.com', '', ' b@example.com '] },
      want: { to: ['a@example.com', 'b@example.com'] },
    },
    { name: 'no recipient is refused', settings: { to: ['', ' '] }, want: 'to names no recipient' },
    {
      name: 'a mapping in to is refused',
      settings: { to: { a: 1 } },
      want: 'to must be an address or a list of addresses, not a mapping',
    },
    {
      name: 'text is sent as HTML with line breaks by default',
      settings: { to: 'a@x', message: 'one\ntwo' },
      want: { contentType: 'text/html', body: 'one<br />two' },
    },
    {
      name: 'text/plain sends the text as written',
      settings: { to: 'a@x', message: 'one\ntwo', contentType: 'text/plain' },
      want: { contentType: 'text/plain', body: 'one\ntwo' },
    },
    {
      name: 'another content type is refused',
      settings: { to: 'a@x', contentType: 'application/json' },
      want: 'contentType "application/json" is not supported',
    },
    {
      name: 'relative attachments resolve against the working directory',
      settings: { to: 'a@x', attachments: ['out/report.csv', '/abs/log.txt'] },
      want: { attachments: ['/work/dir/out/report.csv', '/abs/log.txt'] },
    },
    {
      name: 'one attachment may be written as a path',
      settings: { to: 'a@x', attachments: 'report.csv' },
      want: { attachments: ['/work/dir/report.csv'] },
    },
    {
      name: 'a subject that is not text is refused',
      settings: { to: 'a@x', subject: 42 },
      want: 'subject must be text, not number 42',
    },
  ];
  it.each(cases)('$name', ({ settings, want }) => {
    const got = decideMessage(settings, '/work/dir');
    if (typeof want === 'string') expect(got.ok ? 'accepted' : got.error).toContain(want);
    else expect(got).toMatchObject({ ok: true, value: want });
  });
});

describe('htmlBody', () => {
  const cases = [
    { name: 'line breaks of every kind become br tags', text: 'a\r\nb\rc\nd', want: 'a<br />b<br />c<br />d' },
    { name: 'escaped line breaks written in YAML become br tags too', text: 'a\\nb', want: 'a<br />b' },
    {
      name: 'a whole HTML document is left alone',
      text: '<!DOCTYPE html>\n<p>x</p>',
      want: '<!DOCTYPE html>\n<p>x</p>',
    },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(htmlBody(text)).toBe(want);
  });
});
