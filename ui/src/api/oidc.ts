/**
 * OpenID Connect sign-in as the UI sees it (docs/api-auth.md): GET /auth/me says whether the
 * server offers it, with which provider, and who is signed in; POST /auth/logout ends the
 * session and names where the browser goes next (the provider's logout, or home). Both travel
 * with the HttpOnly session cookie; the UI never reads it.
 */
import type { Session } from './session.ts';

interface Me {
  readonly user?: string;
  readonly groups?: readonly string[];
  readonly oidc?: { readonly name: string; readonly login: string };
}

/** Asks the server once at start; a server without OIDC answers 404 and nothing changes. */
export async function discoverOidc(session: Session, fetch: typeof globalThis.fetch = globalThis.fetch): Promise<void> {
  let response: Response;
  try {
    response = await fetch('/auth/me', { credentials: 'same-origin', headers: { Accept: 'application/json' } });
  } catch {
    return;
  }
  if (response.status !== 200 && response.status !== 401) return;
  const me = (await response.json().catch(() => ({}))) as Me;
  if (me.oidc === undefined) return;
  session.oidcFound({
    provider: me.oidc,
    ...(response.status === 200 && me.user !== undefined ? { user: { user: me.user, groups: me.groups ?? [] } } : {}),
  });
}

/** Where the provider's sign-in starts, coming back to the page shown now. */
export function loginUrl(login: string, here: Location = window.location): string {
  return `${login}?next=${encodeURIComponent(here.pathname + here.search)}`;
}

/** Ends the OIDC session and goes where the server says (the provider's end-session page, or home). */
export async function oidcSignOut(): Promise<void> {
  const response = await fetch('/auth/logout', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { Accept: 'application/json' },
  });
  const body = (await response.json().catch(() => ({}))) as { redirect?: string };
  window.location.assign(body.redirect ?? '/');
}
