/**
 * The pure decisions of OIDC sign-in: what a signed-in user may do by the configured mapping,
 * and whether a request authenticated by the session cookie may change anything (CSRF).
 */
import type { OidcGrant } from './settings.ts';

/** The values of a claim as strings: a list, a single string, or nothing. */
export function claimValues(claims: Readonly<Record<string, unknown>>, name: string): string[] {
  const value = claims[name];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/** Every permission any of the values (or `*`, anyone signed in) is mapped to. */
export function permissionsOf(
  values: readonly string[],
  mapping: Readonly<Record<string, readonly OidcGrant[]>>,
): Set<OidcGrant> {
  const granted = new Set<OidcGrant>(mapping['*'] ?? []);
  for (const value of values)
    for (const p of Object.hasOwn(mapping, value) ? (mapping[value] ?? []) : []) granted.add(p);
  return granted;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF by a strict Origin check (docs/decisions/2026-11-29-oidc.md): a state-changing request
 * carried by the cookie must say it comes from the server's own origin. Browsers send Origin on
 * every cross-origin request and on every same-origin POST, PUT, PATCH and DELETE; Referer is
 * the fallback for the few that strip Origin. Neither present means refused: a browser always
 * sends one of them on such a request, and scripts use an Authorization header instead.
 */
export function csrfAllowed(
  method: string,
  origin: string | undefined,
  referer: string | undefined,
  allowedOrigin: string,
): boolean {
  if (SAFE_METHODS.has(method.toUpperCase())) return true;
  if (origin !== undefined && origin !== '') return origin === allowedOrigin;
  if (referer === undefined || referer === '') return false;
  try {
    return new URL(referer).origin === allowedOrigin;
  } catch {
    return false;
  }
}

/** A path of this server to return to after sign-in; anything else (another host, `//x`) goes home. */
export function safeNext(next: string | undefined): string {
  if (next === undefined || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  return next;
}
