import { describe, expect, it } from 'vitest';
import { phaseFigures } from './figures.ts';

const finished = (phase: string, cases: number): string =>
  JSON.stringify({
    ScenarioFinished: {
      phase,
      recorder: { cases: Object.fromEntries(Array.from({ length: cases }, (_, i) => [`c${String(i)}`, {}])) },
    },
  });

describe("a run's figures per phase", () => {
  it('count the cases of every finished scenario, by phase', () => {
    expect(phaseFigures([finished('coverage', 3), finished('coverage', 2), finished('stateful', 4)])).toEqual({
      coverage: { scenarios: 2, cases: 5 },
      stateful: { scenarios: 1, cases: 4 },
    });
  });

  it('ignore every other event', () => {
    expect(
      phaseFigures([JSON.stringify({ ScenarioStarted: { phase: 'fuzzing' } }), JSON.stringify({ PhaseFinished: {} })]),
    ).toEqual({});
  });
});
