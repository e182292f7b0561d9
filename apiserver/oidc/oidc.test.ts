import { describe, expect, it } from 'vitest';
import { claimValues, csrfAllowed, permissionsOf, safeNext } from './policy.ts';
import { MAX_COOKIE_BYTES, seal, sealKey, sealSession, unseal, type Session } from './session.ts';
import { parseOidcConfig, parsePermissionMap } from './settings.ts';

const ORIGIN = 'https://kubedag.example.com';

describe('permissions from claims', () => {
  const mapping = {
    admins: ['read', 'run', 'write', 'delete'] as const,
    operators: ['read', 'run'] as const,
    '*': ['read'] as const,
  };
  it('unites what every value and * grant', () => {
    expect([...permissionsOf(['operators'], mapping)].sort()).toEqual(['read', 'run']);
    expect([...permissionsOf(['operators', 'admins'], mapping)].sort()).toEqual(['delete', 'read', 'run', 'write']);
    expect([...permissionsOf([], mapping)]).toEqual(['read']);
  });
  it('grants nothing for unknown values without *, and never reads the prototype', () => {
    expect(permissionsOf(['strangers', 'constructor', '__proto__'], { admins: ['read'] }).size).toBe(0);
  });
  it('reads a claim as a list, a string, or nothing', () => {
    expect(claimValues({ groups: ['a', 7, 'b'] }, 'groups')).toEqual(['a', 'b']);
    expect(claimValues({ role: 'admin' }, 'role')).toEqual(['admin']);
    expect(claimValues({}, 'groups')).toEqual([]);
  });
  it('refuses a mapping to an unknown permission', () => {
    expect(() => parsePermissionMap('{"a":["read","own"]}', 'X')).toThrow(/"a" must map to a list/);
    expect(() => parsePermissionMap('["read"]', 'X')).toThrow(/JSON object/);
    expect(parsePermissionMap('{"a":["read","read","run"]}', 'X')).toEqual({ a: ['read', 'run'] });
  });
});

describe('CSRF: a strict Origin check for changes made with the cookie', () => {
  it('lets reads through whatever their origin', () => {
    expect(csrfAllowed('GET', 'https://evil.example', undefined, ORIGIN)).toBe(true);
  });
  it('accepts a change from the own origin, by Origin or else Referer', () => {
    expect(csrfAllowed('POST', ORIGIN, undefined, ORIGIN)).toBe(true);
    expect(csrfAllowed('DELETE', undefined, `${ORIGIN}/dags/x`, ORIGIN)).toBe(true);
  });
  it('refuses a change from another origin, a look-alike, or from nowhere', () => {
    expect(csrfAllowed('POST', 'https://evil.example', `${ORIGIN}/`, ORIGIN)).toBe(false);
    expect(csrfAllowed('PUT', `${ORIGIN}.evil.example`, undefined, ORIGIN)).toBe(false);
    expect(csrfAllowed('POST', 'null', undefined, ORIGIN)).toBe(false);
    expect(csrfAllowed('PATCH', undefined, undefined, ORIGIN)).toBe(false);
    expect(csrfAllowed('POST', undefined, 'not a url', ORIGIN)).toBe(false);
  });
  it('returns after sign-in only to a path of this server', () => {
    expect(safeNext('/dags/a?x=1')).toBe('/dags/a?x=1');
    for (const bad of ['//evil.example/', 'https://evil.example/', '/\\evil.example', undefined])
      expect(safeNext(bad)).toBe('/');
  });
});

describe('sealed cookies', () => {
  const key = sealKey('k'.repeat(32), 'session');
  const now = Date.UTC(2026, 10, 29);
  const inAnHour = now / 1000 + 3600;
  const session: Session = {
    sid: 's1',
    user: 'ann@example.com',
    groups: ['ops'],
    claimValues: ['ops'],
    tokensExpire: inAnHour,
    ends: inAnHour,
    refreshToken: 'r',
  };

  it('opens with the same key (another replica) and nothing else', async () => {
    const text = await sealSession(session, key, now);
    expect(await unseal(text, sealKey('k'.repeat(32), 'session'), now)).toEqual(session);
    expect(await unseal(text, sealKey('o'.repeat(32), 'session'), now)).toBeUndefined();
    // A flow cookie and a session cookie are sealed with different keys: one is never taken for the other.
    expect(await unseal(text, sealKey('k'.repeat(32), 'flow'), now)).toBeUndefined();
  });
  it('refuses a tampered cookie', async () => {
    const text = (await sealSession(session, key, now)) ?? '';
    const parts = text.split('.');
    const body = parts[3] ?? '';
    parts[3] = (body[0] === 'A' ? 'B' : 'A') + body.slice(1);
    expect(await unseal(parts.join('.'), key, now)).toBeUndefined();
    expect(await unseal('garbage', key, now)).toBeUndefined();
  });
  it('refuses an expired cookie', async () => {
    const text = await seal({ a: 1 }, key, now / 1000 + 60, now);
    expect(await unseal(text, key, now + 30_000)).toEqual({ a: 1 });
    expect(await unseal(text, key, now + 120_000)).toBeUndefined();
  });
  it('fits in a cookie by dropping the id token, then the refresh token', async () => {
    const big = { ...session, idToken: 'i'.repeat(3000), refreshToken: 'r'.repeat(500) };
    const opened = await unseal<Session>(await sealSession(big, key, now), key, now);
    expect(opened?.idToken).toBeUndefined();
    expect(opened?.refreshToken).toBe(big.refreshToken);
    const huge = { ...big, refreshToken: 'r'.repeat(4000) };
    const text = await sealSession(huge, key, now);
    expect(text?.length).toBeLessThanOrEqual(MAX_COOKIE_BYTES);
    expect((await unseal<Session>(text, key, now))?.refreshToken).toBeUndefined();
    expect(await sealSession({ ...session, user: 'u'.repeat(5000) }, key, now)).toBeUndefined();
  });
});

describe('settings', () => {
  const base = {
    oidcIssuer: 'https://dex.example.com',
    oidcClientId: 'kubedag',
    oidcRedirectUrl: `${ORIGIN}/auth/oidc/callback`,
    oidcSessionKey: 'x'.repeat(32),
    oidcPermissions: '{"ops":["read"]}',
  } as Record<string, string | undefined>;
  const parse = (more: Record<string, string | undefined>, kubernetes = false) =>
    parseOidcConfig({ ...base, ...more } as Parameters<typeof parseOidcConfig>[0], kubernetes);
  it('has safe defaults', () => {
    const config = parse({});
    expect(config).toMatchObject({
      secureCookie: true,
      groupsClaim: 'groups',
      providerName: 'dex.example.com',
      scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    });
    expect(parse({ oidcScopes: 'email, profile' }).scopes).toEqual(['openid', 'email', 'profile']);
  });
  it('refuses what would start a server open or broken', () => {
    expect(() => parse({ oidcSessionKey: 'short' })).toThrow(/SESSION_KEY/);
    expect(() => parse({ oidcPermissions: undefined })).toThrow(/PERMISSIONS is required/);
    expect(parse({ oidcPermissions: undefined }, true).permissions).toEqual({});
    expect(() => parse({ oidcIssuer: 'ftp://x' })).toThrow(/ISSUER/);
    expect(() => parse({ oidcCookieSecure: 'yes' })).toThrow(/COOKIE_SECURE/);
    expect(() => parse({ oidcClientId: undefined })).toThrow(/CLIENT_ID/);
  });
});
