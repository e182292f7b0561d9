import { describe, expect, it } from 'vitest';
import type { RunNode } from '../../core/resources/schemas.ts';
import { approvalFields, screamingSnakeToCamel } from './approval.ts';

const base: RunNode = { name: 'review', status: 4, statusLabel: 'succeeded' };

describe("a step record's approval fields, as Dagu 2.x's node names them", () => {
  it.each([
    { name: 'TICKET', want: 'ticket' },
    { name: 'RELEASE_NOTE', want: 'releaseNote' },
    { name: '__A__B', want: 'aB' },
    { name: 'note', want: 'note' },
  ])('keys an approval input $name as $want, as Dagu does', ({ name, want }) => {
    expect(screamingSnakeToCamel(name)).toBe(want);
  });

  it('leaves every field out of a record no one answered', () => {
    expect(approvalFields(base)).toEqual({});
  });

  it('shows who approved, when, and the inputs keyed in camel case', () => {
    const node: RunNode = {
      ...base,
      approvedAt: '2026-11-29T10:00:00Z',
      approvedBy: 'ana',
      approvalInputs: { TICKET: 'T-1', RELEASE_NOTE: 'fine' },
    };
    expect(approvalFields(node)).toEqual({
      approvedAt: '2026-11-29T10:00:00Z',
      approvedBy: 'ana',
      approvalInputs: { ticket: 'T-1', releaseNote: 'fine' },
    });
  });

  it('shows a rejection with its reason', () => {
    const node: RunNode = {
      ...base,
      status: 8,
      rejectedAt: '2026-11-29T10:00:00Z',
      rejectedBy: 'bo',
      rejectionReason: 'no',
    };
    expect(approvalFields(node)).toEqual({
      rejectedAt: '2026-11-29T10:00:00Z',
      rejectedBy: 'bo',
      rejectionReason: 'no',
    });
  });

  it('shows the push-back a step re-ran for as its iteration, inputs and a one-entry history', () => {
    const node: RunNode = {
      ...base,
      approvalIteration: 2,
      pushBackInputs: { NOTE: 'again' },
      pushBackBy: 'cy',
      pushBackAt: '2026-11-29T11:00:00Z',
    };
    expect(approvalFields(node)).toEqual({
      approvalIteration: 2,
      pushBackInputs: { NOTE: 'again' },
      pushBackHistory: [{ iteration: 2, by: 'cy', at: '2026-11-29T11:00:00Z', inputs: { NOTE: 'again' } }],
    });
  });
});
