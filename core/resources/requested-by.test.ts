import { describe, expect, it } from 'vitest';
import { parseRequestedBy, requestedByValue, type Requester } from './requested-by.ts';

describe('the requested-by annotation value', () => {
  it.each<[string, Requester, string]>([
    ['a Basic user', { user: 'alice', method: 'basic' }, 'alice (basic)'],
    [
      'a Kubernetes service account',
      { user: 'system:serviceaccount:ci:deployer', method: 'kubernetes' },
      'system:serviceaccount:ci:deployer (kubernetes)',
    ],
    ['anyone, with authentication off', { user: 'anonymous', method: 'none' }, 'anonymous (none)'],
    [
      'a user whose name has spaces and parentheses',
      { user: 'Bob (ops) (basic)', method: 'oidc' },
      'Bob (ops) (basic) (oidc)',
    ],
  ])('%s reads back as written', (_, requester, value) => {
    expect(requestedByValue(requester)).toBe(value);
    expect(parseRequestedBy(value)).toEqual(requester);
  });

  it.each([undefined, '', 'alice', 'alice (root)', 'alice(basic)'])('reads %s as nobody known', (value) => {
    expect(parseRequestedBy(value)).toBeUndefined();
  });

  it('keeps an overlong name from growing the object', () => {
    expect(requestedByValue({ user: 'x'.repeat(1000), method: 'token' })).toHaveLength(256 + ' (token)'.length);
  });
});
