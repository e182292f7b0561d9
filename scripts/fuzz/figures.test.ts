import { describe, expect, it } from 'vitest';
import { operationStatuses, phaseFigures } from './figures.ts';

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

/** A finished scenario whose cases (`METHOD /path`) got the given statuses (null: no answer). */
const answered = (...calls: [string, number | null][]): string =>
  JSON.stringify({
    ScenarioFinished: {
      phase: 'fuzzing',
      recorder: {
        cases: Object.fromEntries(
          calls.map(([operation], i) => {
            const [method, path] = operation.split(' ');
            return [`c${String(i)}`, { value: { method, path } }];
          }),
        ),
        interactions: Object.fromEntries(
          calls.map(([, status], i) => [
            `c${String(i)}`,
            { response: status === null ? null : { status_code: status } },
          ]),
        ),
      },
    },
  });

describe("a run's answers per operation", () => {
  it.each([
    {
      name: 'count each status class per operation, across scenarios',
      lines: [answered(['GET /a', 200], ['GET /a', 404], ['POST /a', 400]), answered(['GET /a', 204], ['GET /a', 501])],
      expected: { 'GET /a': { '2xx': 2, '4xx': 1, '5xx': 1 }, 'POST /a': { '4xx': 1 } },
    },
    {
      name: 'count a case without an answer as none',
      lines: [answered(['GET /b', null])],
      expected: { 'GET /b': { none: 1 } },
    },
    {
      name: 'ignore scenarios without interactions and every other event',
      lines: [finished('coverage', 2), JSON.stringify({ ScenarioStarted: { phase: 'fuzzing' } })],
      expected: {},
    },
  ])('$name', ({ lines, expected }) => {
    expect(operationStatuses(lines)).toEqual(expected);
  });
});
