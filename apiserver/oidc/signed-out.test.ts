import { describe, expect, it } from 'vitest';
import { MAX_SIGNED_OUT, withSignOut } from './signed-out.ts';

describe('a sign-out added to the shared list', () => {
  it('drops the entries whose sessions have ended and adds the new one', () => {
    expect(withSignOut({ old: '999', live: '2000' }, 'new', 3000, 1000)).toEqual({
      data: { live: '2000', new: '3000' },
      full: false,
    });
    expect(withSignOut(undefined, 'first', 3000, 1000)).toEqual({ data: { first: '3000' }, full: false });
  });

  it('adds nothing to a full list, but takes an id already on it', () => {
    const data = Object.fromEntries(Array.from({ length: MAX_SIGNED_OUT }, (_, i) => [`s${String(i)}`, '5000']));
    expect(withSignOut(data, 'one-more', 6000, 1000)).toMatchObject({ full: true });
    expect(withSignOut(data, 'one-more', 6000, 1000).data['one-more']).toBeUndefined();
    expect(withSignOut(data, 's7', 6000, 1000)).toMatchObject({ full: false, data: { s7: '6000' } });
    // Once some have ended there is room again.
    expect(withSignOut(data, 'one-more', 6000, 5000)).toEqual({ data: { 'one-more': '6000' }, full: false });
  });
});
