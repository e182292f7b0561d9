import { describe, expect, it } from 'vitest';
import { startedByText, type Origin } from './origin.ts';

const alice = { user: 'alice', method: 'basic' };
const bob = { user: 'bob', method: 'oidc' };

describe('startedByText', () => {
  it.each<[string, Origin, ReturnType<typeof startedByText>]>([
    [
      'a run a person started',
      { trigger: 'api', startedBy: alice, requestedBy: alice },
      { startedBy: 'alice (basic)' },
    ],
    [
      'a run someone else stopped',
      { trigger: 'api', startedBy: alice, requestedBy: bob },
      { startedBy: 'alice (basic)', changedBy: 'bob (oidc)' },
    ],
    ['a scheduled run', { trigger: 'schedule', startedBy: null, requestedBy: null }, { startedBy: 'the scheduler' }],
    ['a sub-run', { trigger: 'sub-run', startedBy: null, requestedBy: null }, { startedBy: 'its parent run' }],
    [
      'a scheduled run a person stopped',
      { trigger: 'schedule', startedBy: null, requestedBy: bob },
      { startedBy: 'the scheduler', changedBy: 'bob (oidc)' },
    ],
    ['a run made before requesters were recorded', { trigger: 'api', startedBy: null, requestedBy: null }, {}],
  ])('%s', (_, origin, want) => {
    expect(startedByText(origin)).toEqual(want);
  });
});
