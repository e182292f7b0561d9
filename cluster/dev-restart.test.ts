import { describe, expect, it } from 'vitest';
import { nextRestart, RESTART_POLICY } from './dev-restart.ts';

describe('when make dev starts a component that ended again', () => {
  it('waits a second after the first quick end and doubles the wait with each quick end after it, up to the cap', () => {
    let streak = 0;
    const waits: number[] = [];
    for (let i = 0; i < 8; i += 1) {
      const restart = nextRestart(streak, 5_000);
      waits.push(restart.delayMs);
      streak = restart.streak;
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts over from a second once a start ran as long as the reset time', () => {
    expect(nextRestart(6, RESTART_POLICY.resetAfterMs)).toEqual({ delayMs: 1000, streak: 1 });
    expect(nextRestart(6, RESTART_POLICY.resetAfterMs - 1)).toEqual({ delayMs: 30_000, streak: 7 });
  });
});
