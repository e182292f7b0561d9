/**
 * Who the browser is to the API: the credentials a user signed in with, kept in
 * sessionStorage (per tab, gone when it closes, never a cookie: there is nothing for another
 * site to ride on), and whether the API has asked for credentials. The UI does not know which
 * auth modes the server has on; the first 401 tells it that some are (docs/api-auth.md).
 */

export type Credentials =
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'token'; readonly token: string };

/** OpenID Connect sign-in, when the server offers it (GET /auth/me): the provider, and who is signed in with it. */
export interface OidcState {
  readonly provider: { readonly name: string; readonly login: string };
  readonly user?: { readonly user: string; readonly groups: readonly string[] };
  /** Someone was signed in, and the server has since refused the session (it expired, or was signed out elsewhere). */
  readonly ended?: boolean;
}

export interface SessionState {
  readonly credentials: Credentials | undefined;
  /** Set once GET /auth/me said the server signs people in with OIDC. */
  readonly oidc?: OidcState;
  /** The API answered 401: the credentials held (if any) are missing or wrong. */
  readonly signInRequired: boolean;
}

const KEY = 'kubedag.credentials';

/** The Authorization header for credentials: Basic per RFC 7617 (UTF-8), or Bearer. */
export function authorization(credentials: Credentials): string {
  if (credentials.kind === 'token') return `Bearer ${credentials.token.trim()}`;
  const bytes = new TextEncoder().encode(`${credentials.username}:${credentials.password}`);
  return `Basic ${btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(''))}`;
}

function parse(text: string | null): Credentials | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Record<string, unknown>>;
    if (value.kind === 'token' && typeof value.token === 'string') return { kind: 'token', token: value.token };
    if (value.kind === 'basic' && typeof value.username === 'string' && typeof value.password === 'string')
      return { kind: 'basic', username: value.username, password: value.password };
  } catch {
    // Whatever is there was not written by this code; treat it as absent.
  }
  return undefined;
}

/** A small store for useSyncExternalStore: a snapshot that changes identity on every change. */
export class Session {
  private readonly storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  private readonly listeners = new Set<() => void>();
  private current: SessionState;

  constructor(storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>) {
    this.storage = storage;
    this.current = { credentials: parse(storage.getItem(KEY)), signInRequired: false };
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly snapshot = (): SessionState => this.current;

  /** The header every API call carries; undefined when nobody signed in. */
  header(): string | undefined {
    return this.current.credentials === undefined ? undefined : authorization(this.current.credentials);
  }

  signIn(credentials: Credentials): void {
    this.storage.setItem(KEY, JSON.stringify(credentials));
    this.set({ credentials, signInRequired: false });
  }

  signOut(): void {
    this.storage.removeItem(KEY);
    this.set({
      credentials: undefined,
      signInRequired: false,
      ...(this.current.oidc === undefined ? {} : { oidc: { provider: this.current.oidc.provider } }),
    });
  }

  /** Whether requests carry the session cookie: only when the server offers OIDC (see client.ts). */
  usesCookies(): boolean {
    return this.current.oidc !== undefined;
  }

  /** What GET /auth/me answered: a signed-in user, or only the provider to sign in with. */
  oidcFound(oidc: OidcState): void {
    this.set({ ...this.current, oidc, ...(oidc.user === undefined ? {} : { signInRequired: false }) });
  }

  /** A 401 came back for a request that carried `sent` (the header at the time). */
  rejected(sent: string | undefined): void {
    // A request that left before a sign-in must not undo it.
    if (sent !== this.header() || this.current.signInRequired) return;
    // An OIDC session that ended (signed out elsewhere, expired) is no longer who is signed in.
    if (this.current.oidc?.user !== undefined && sent === undefined)
      this.current = { ...this.current, oidc: { provider: this.current.oidc.provider, ended: true } };
    this.set({ ...this.current, signInRequired: true });
  }

  private set(state: SessionState): void {
    this.current = state;
    for (const listener of this.listeners) listener();
  }
}
