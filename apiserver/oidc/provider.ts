/**
 * Sign-in with an OpenID Connect provider through openid-client (v6): the authorization code
 * flow with PKCE, nonce and state; refresh when the tokens expire; RP-initiated logout. The
 * session lives in a sealed cookie (session.ts). Logout puts the session's id on a deny list
 * until the session would have ended: in this process, and, when sign-outs are shared
 * (signed-out.ts, a ConfigMap every replica watches), on every replica.
 */
import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { claimValues } from './policy.ts';
import { sealKey, sealSession, unseal, type Session } from './session.ts';
import type { SignedOutSessions } from './signed-out.ts';
import type { OidcConfig } from './settings.ts';

/** How long a refresh's outcome is given to requests that carry the cookie it replaced. */
const REFRESH_REUSE_MS = 60_000;

/** What reading a request's session cookie gives. */
export type SessionRead =
  | { readonly outcome: 'none' }
  | { readonly outcome: 'valid'; readonly session: Session; readonly renewed?: string }
  | { readonly outcome: 'invalid'; readonly message: string };

export interface OidcOptions {
  /** Milliseconds since the epoch; tests move it to expire sessions. */
  readonly now?: () => number;
}

/** The user name a Kubedag caller gets: the e-mail, else the preferred user name, else the subject. */
function userOf(claims: Readonly<Record<string, unknown>>): string {
  for (const name of ['email', 'preferred_username', 'sub']) {
    const value = claims[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return 'unknown';
}

export class OidcProvider {
  readonly config: OidcConfig;
  readonly sessionKey: Uint8Array;
  readonly flowKey: Uint8Array;
  readonly origin: string;
  private readonly client: client.Configuration;
  private readonly now: () => number;
  /** Logged-out session ids and when they would have ended anyway (ms). */
  private readonly denied = new Map<string, number>();
  /** Sign-outs every replica sees, when the server shares them; `failed` hears a sign-out that could not be shared. */
  private shared: { readonly store: SignedOutSessions; readonly failed: (error: Error) => void } | undefined;
  /**
   * Refreshes under way or just made, by session id and refresh token, and until when (ms) an
   * answer is reused. A page makes several requests at once with one expired cookie; the
   * provider rotates the refresh token on first use (Dex refuses a second use as "claimed
   * twice"), so each request refreshing on its own would sign the user out. Requests sent
   * with the old cookie before the browser got the new one are given the same renewal.
   */
  private readonly refreshes = new Map<string, { readonly read: Promise<SessionRead>; until: number }>();

  private constructor(config: OidcConfig, configuration: client.Configuration, now: () => number) {
    this.config = config;
    this.client = configuration;
    this.now = now;
    this.sessionKey = sealKey(config.sessionKey, 'session');
    this.flowKey = sealKey(config.sessionKey, 'flow');
    this.origin = new URL(config.redirectUrl).origin;
  }

  /** Reads the provider's discovery document; the server does not start without it. */
  static async discover(config: OidcConfig, options: OidcOptions = {}): Promise<OidcProvider> {
    const issuer = new URL(config.issuer);
    // Plain http only for an issuer on this machine (development, tests); openid-client refuses it otherwise.
    const local = issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
    // Deprecated only to stand out: this is the local-development use it exists for.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const execute = local ? { execute: [client.allowInsecureRequests] } : undefined;
    const configuration = await client.discovery(issuer, config.clientId, config.clientSecret, undefined, execute);
    return new OidcProvider(config, configuration, options.now ?? Date.now);
  }

  get endSessionSupported(): boolean {
    return this.client.serverMetadata().end_session_endpoint !== undefined;
  }

  /** Where to send the browser to sign in, and the flow to seal in a cookie until it comes back. */
  async authorizationUrl(
    next: string,
  ): Promise<{ url: URL; flow: { state: string; nonce: string; verifier: string; next: string } }> {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(this.client, {
      redirect_uri: this.config.redirectUrl,
      scope: this.config.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, flow: { state, nonce, verifier, next } };
  }

  /** The session the provider's answer at the callback establishes; throws when it is refused (wrong state, bad code). */
  async callback(query: string, flow: { state: string; nonce: string; verifier: string }): Promise<Session> {
    const current = new URL(this.config.redirectUrl);
    current.search = query;
    const tokens = await client.authorizationCodeGrant(this.client, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const now = this.now();
    return this.sessionFrom(
      tokens,
      { sid: randomUUID(), ends: Math.floor(now / 1000) + this.config.sessionTtlSeconds },
      now,
    );
  }

  private sessionFrom(
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
    keep: { sid: string; ends: number; refreshToken?: string },
    now: number,
  ): Session {
    const claims = (tokens.claims() ?? {}) as Record<string, unknown>;
    const expiresIn = tokens.expiresIn();
    const idExp = typeof claims.exp === 'number' ? claims.exp : undefined;
    const tokensExpire = Math.min(
      expiresIn === undefined ? (idExp ?? keep.ends) : Math.floor(now / 1000) + expiresIn,
      keep.ends,
    );
    const refreshToken = tokens.refresh_token ?? keep.refreshToken;
    return {
      sid: keep.sid,
      user: userOf(claims),
      groups: claimValues(claims, 'groups'),
      claimValues: claimValues(claims, this.config.groupsClaim),
      tokensExpire,
      ends: keep.ends,
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(tokens.id_token === undefined ? {} : { idToken: tokens.id_token }),
    };
  }

  /** The cookie text of a session, or undefined when it cannot fit in one. */
  sealed(session: Session): Promise<string | undefined> {
    return sealSession(session, this.sessionKey, this.now());
  }

  /** The session a cookie carries: refreshed when its tokens expired and a refresh token is there, else ended. */
  async read(cookie: string | undefined): Promise<SessionRead> {
    if (cookie === undefined || cookie === '') return { outcome: 'none' };
    const now = this.now();
    const session = await unseal<Session>(cookie, this.sessionKey, now);
    if (session === undefined)
      return { outcome: 'invalid', message: 'the session cookie is not valid or has expired: sign in again' };
    if (this.isDenied(session.sid, now))
      return { outcome: 'invalid', message: 'this session was signed out: sign in again' };
    if (session.tokensExpire > Math.floor(now / 1000)) return { outcome: 'valid', session };
    if (session.refreshToken === undefined)
      return { outcome: 'invalid', message: 'the session expired: sign in again' };
    return this.refreshOnce(session, session.refreshToken, now);
  }

  /** One refresh per session and refresh token, shared by the requests that need it (see `refreshes`). */
  private refreshOnce(session: Session, refreshToken: string, now: number): Promise<SessionRead> {
    for (const [key, entry] of this.refreshes) if (entry.until <= now) this.refreshes.delete(key);
    const key = `${session.sid}\0${refreshToken}`;
    const known = this.refreshes.get(key);
    if (known !== undefined) return known.read;
    const entry = { read: this.refresh(session, refreshToken, now), until: Number.POSITIVE_INFINITY };
    this.refreshes.set(key, entry);
    // Kept a minute once settled: long enough for requests already on their way with the old cookie.
    const settled = (): void => {
      entry.until = this.now() + REFRESH_REUSE_MS;
    };
    void entry.read.then(settled, settled);
    return entry.read;
  }

  private async refresh(session: Session, refreshToken: string, now: number): Promise<SessionRead> {
    try {
      const tokens = await client.refreshTokenGrant(this.client, refreshToken);
      const renewed = this.sessionFrom(tokens, { sid: session.sid, ends: session.ends, refreshToken }, now);
      const text = await this.sealed(renewed);
      if (text === undefined)
        return { outcome: 'invalid', message: 'the session no longer fits in a cookie: sign in again' };
      return { outcome: 'valid', session: renewed, renewed: text };
    } catch (error) {
      return {
        outcome: 'invalid',
        message: `the session could not be refreshed (${(error as Error).message}): sign in again`,
      };
    }
  }

  /** Shares this replica's sign-outs with the others, and theirs with it. */
  shareSignOuts(store: SignedOutSessions, failed: (error: Error) => void): void {
    this.shared = { store, failed };
  }

  private isDenied(sid: string, now: number): boolean {
    for (const [id, until] of this.denied) if (until <= now) this.denied.delete(id);
    return this.denied.has(sid) || this.shared?.store.has(sid, now) === true;
  }

  /** Ends the session here, and says where the browser goes to end it at the provider (when it offers that). */
  async logout(session: Session | undefined, returnTo: string): Promise<string> {
    if (session !== undefined) {
      this.denied.set(session.sid, session.ends * 1000);
      // Held here whatever happens; the other replicas learn it once it is written.
      await this.shared?.store.add(session.sid, session.ends * 1000).catch((error: unknown) => {
        this.shared?.failed(error as Error);
      });
    }
    if (!this.endSessionSupported) return returnTo;
    return client
      .buildEndSessionUrl(this.client, {
        post_logout_redirect_uri: returnTo,
        client_id: this.config.clientId,
        ...(session?.idToken === undefined ? {} : { id_token_hint: session.idToken }),
      })
      .toString();
  }
}
