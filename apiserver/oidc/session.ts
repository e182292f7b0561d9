/**
 * The sign-in session as a cookie, so that any replica holding the same key can read it and no
 * store is shared: the session is a JWE (jose; `dir` with A256GCM), encrypted rather than only
 * signed because it carries the refresh token. The key is derived from
 * KUBEDAG_AUTH_OIDC_SESSION_KEY with HKDF, one key per purpose, so that a sealed login flow can
 * never be replayed as a session. A tampered, foreign or expired cookie does not open.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, jwtDecrypt } from 'jose';

export const SESSION_COOKIE = 'kubedag_session';
export const FLOW_COOKIE = 'kubedag_oidc_flow';
/** Browsers keep cookies up to about 4096 bytes with name and attributes; a bigger session is refused, never cut. */
export const MAX_COOKIE_BYTES = 3800;
/** Groups kept in a session, at most: a user in more is named by the first ones (documented). */
export const MAX_GROUPS = 64;

export interface Session {
  /** A random id: what logout puts on the deny list. */
  readonly sid: string;
  readonly user: string;
  readonly groups: readonly string[];
  /** The values of the mapping's claim (the groups when the claim is `groups`). */
  readonly claimValues: readonly string[];
  /** When the provider's tokens expire (seconds since the epoch): then they are refreshed or the session ends. */
  readonly tokensExpire: number;
  readonly refreshToken?: string;
  /** The id token, kept for RP-initiated logout's id_token_hint when it fits. */
  readonly idToken?: string;
  /** When the sign-in itself ends, refreshes or not (seconds since the epoch). */
  readonly ends: number;
}

/** What the login redirect must find again at the callback. */
export interface Flow {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
  /** Where to go after sign-in: a path of this server. */
  readonly next: string;
}

export type Purpose = 'session' | 'flow';

export function sealKey(secret: string, purpose: Purpose): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, 'kubedag-oidc', `kubedag ${purpose} cookie v1`, 32));
}

/** The sealed value; `expires` is when it stops opening (seconds since the epoch). */
export async function seal(value: object, key: Uint8Array, expires: number, now: number = Date.now()): Promise<string> {
  return new EncryptJWT({ v: value })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(expires)
    .encrypt(key);
}

/** The value sealed, or undefined when the text is not one of ours, was changed, or expired. */
export async function unseal<T>(
  text: string | undefined,
  key: Uint8Array,
  now: number = Date.now(),
): Promise<T | undefined> {
  if (text === undefined || text === '') return undefined;
  try {
    const { payload } = await jwtDecrypt(text, key, {
      currentDate: new Date(now),
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    return payload.v as T;
  } catch {
    return undefined;
  }
}

/**
 * The session sealed for a cookie, made to fit: the id token goes first (logout then does without
 * its hint), then the refresh token (the session then ends when the tokens expire); a session
 * still too big is refused by the caller.
 */
export async function sealSession(
  session: Session,
  key: Uint8Array,
  now: number = Date.now(),
): Promise<string | undefined> {
  const bounded: Session = {
    ...session,
    groups: session.groups.slice(0, MAX_GROUPS),
    claimValues: session.claimValues.slice(0, MAX_GROUPS),
  };
  const { idToken: _id, ...withoutId } = bounded;
  const { refreshToken: _rt, ...bare } = withoutId;
  for (const candidate of [bounded, withoutId, bare]) {
    const text = await seal(candidate, key, session.ends, now);
    if (text.length <= MAX_COOKIE_BYTES) return text;
  }
  return undefined;
}
