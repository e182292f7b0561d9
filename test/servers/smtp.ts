/**
 * A real SMTP server on loopback for the mail tests (the smtp-server package), recording each
 * delivered message parsed by mailparser together with how the session was secured.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface Delivery {
  readonly mailFrom: string;
  readonly rcptTo: readonly string[];
  /** The session ran over TLS (STARTTLS or implicit) when the message arrived. */
  readonly secure: boolean;
  /** The user name the client authenticated as, if it did. */
  readonly user?: string;
  readonly mail: ParsedMail;
}

export interface Login {
  readonly method: string;
  readonly username: string;
  readonly password: string;
  readonly secure: boolean;
}

export interface SmtpTestServer {
  readonly port: number;
  readonly deliveries: Delivery[];
  readonly logins: Login[];
  readonly close: () => Promise<void>;
}

export interface SmtpTestOptions {
  /** TLS key and certificate: offered with STARTTLS, or from the first byte with `secure`. */
  readonly tls?: { readonly key: string; readonly cert: string };
  readonly secure?: boolean;
  /** Accepted credentials; without them the server takes mail from anyone and offers no AUTH. */
  readonly credentials?: { readonly username: string; readonly password: string };
  readonly port?: number;
}

export async function startSmtpServer(options: SmtpTestOptions): Promise<SmtpTestServer> {
  const deliveries: Delivery[] = [];
  const logins: Login[] = [];
  const { credentials } = options;
  const settings: SMTPServerOptions = {
    secure: options.secure ?? false,
    ...(options.tls === undefined ? { hideSTARTTLS: true } : { key: options.tls.key, cert: options.tls.cert }),
    authOptional: credentials === undefined,
    ...(credentials === undefined ? { disabledCommands: ['AUTH'] } : {}),
    // smtp-server refuses AUTH before TLS unless told otherwise; the mailer decides that, not the server.
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, session, callback) {
      logins.push({
        method: auth.method,
        username: auth.username ?? '',
        password: auth.password ?? '',
        secure: session.secure,
      });
      if (credentials !== undefined && auth.username === credentials.username && auth.password === credentials.password)
        callback(null, { user: auth.username });
      else callback(new Error('invalid credentials'));
    },
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          deliveries.push({
            mailFrom: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
            rcptTo: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            secure: session.secure,
            ...(typeof session.user === 'string' ? { user: session.user } : {}),
            mail,
          });
          callback();
        },
        (error: unknown) => {
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    },
  };
  const server = new SMTPServer(settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    deliveries,
    logins,
    close: () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
