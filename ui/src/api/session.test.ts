import { describe, expect, it } from 'vitest';
import { authorization, Session } from './session.ts';

function memoryStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> & { items: Map<string, string> } {
  const items = new Map<string, string>();
  return {
    items,
    getItem: (k) => items.get(k) ?? null,
    setItem: (k, v) => void items.set(k, v),
    removeItem: (k) => void items.delete(k),
  };
}

describe('the browser session', () => {
  it('sends Basic credentials as UTF-8 base64 and tokens as Bearer', () => {
    expect(authorization({ kind: 'basic', username: 'zoë', password: 'a:b' })).toBe('Basic em/DqzphOmI=');
    expect(authorization({ kind: 'token', token: ' abc\n' })).toBe('Bearer abc');
  });

  it('keeps credentials in its storage across a reload and forgets them on sign-out', () => {
    const storage = memoryStorage();
    new Session(storage).signIn({ kind: 'token', token: 't' });
    const reloaded = new Session(storage);
    expect(reloaded.header()).toBe('Bearer t');
    reloaded.signOut();
    expect([reloaded.header(), storage.items.size]).toEqual([undefined, 0]);
  });

  it('asks for sign-in on a 401 to the credentials it holds, not on one to credentials it replaced', () => {
    const session = new Session(memoryStorage());
    const before = session.header();
    session.signIn({ kind: 'token', token: 'new' });
    session.rejected(before);
    expect(session.snapshot().signInRequired).toBe(false);
    session.rejected(session.header());
    expect(session.snapshot().signInRequired).toBe(true);
  });

  it('forgets the OIDC user on a 401 to the cookie and says the session ended, keeping the provider to sign in with', () => {
    const session = new Session(memoryStorage());
    const provider = { name: 'Dex', login: '/auth/oidc/login' };
    session.oidcFound({ provider, user: { user: 'ann@example.com', groups: [] } });
    session.rejected(undefined);
    expect(session.snapshot()).toMatchObject({ signInRequired: true, oidc: { provider, ended: true } });
    expect(session.snapshot().oidc?.user).toBeUndefined();
  });

  it('ignores stored text it did not write', () => {
    const storage = memoryStorage();
    storage.items.set('kubedag.credentials', '{"kind":"cookie"}');
    expect(new Session(storage).header()).toBeUndefined();
  });
});
