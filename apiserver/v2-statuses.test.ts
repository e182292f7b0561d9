import { describe, expect, it } from 'vitest';
import { v2Statuses } from './v2-statuses.ts';

describe('/api/v2 statuses', () => {
  it('answers waiting (7) as running (1) and rejected (8) as failed (2), labels too, at any depth', () => {
    const answer = {
      dagRunDetails: {
        status: 7,
        statusLabel: 'waiting',
        nodes: [
          { step: { name: 'a' }, status: 4, statusLabel: 'succeeded' },
          { step: { name: 'ask' }, status: 7, statusLabel: 'waiting' },
          { step: { name: 'no' }, status: 8, statusLabel: 'rejected' },
        ],
      },
    };
    expect(v2Statuses(answer)).toEqual({
      dagRunDetails: {
        status: 1,
        statusLabel: 'running',
        nodes: [
          { step: { name: 'a' }, status: 4, statusLabel: 'succeeded' },
          { step: { name: 'ask' }, status: 1, statusLabel: 'running' },
          { step: { name: 'no' }, status: 2, statusLabel: 'failed' },
        ],
      },
    });
    // The handler's own object is left as it was: /api/v1 answers from the same views.
    expect(answer.dagRunDetails.nodes[1]?.status).toBe(7);
  });

  it('returns an answer without 2.x statuses as it is, never copied', () => {
    const answer = { runs: [{ status: 4, statusLabel: 'succeeded' }], health: { status: 'healthy' }, n: null };
    expect(v2Statuses(answer)).toBe(answer);
    expect(v2Statuses('text')).toBe('text');
  });
});
