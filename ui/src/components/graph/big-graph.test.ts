import { describe, expect, it } from 'vitest';
import { DRAWN_MAX, drawsWhole, graphWindow, statusGroups, WINDOW_STEPS } from './big-graph.ts';
import type { GraphStep } from './layout.ts';

const step = (name: string, ...depends: string[]): GraphStep => ({ name, depends });
const chain = (n: number): GraphStep[] =>
  Array.from({ length: n }, (_, i) => step(`s${String(i + 1)}`, ...(i === 0 ? [] : [`s${String(i)}`])));

describe('drawsWhole', () => {
  it.each<[string, number, boolean]>([
    ['an ordinary graph is drawn whole', 12, true],
    ['a graph of exactly the limit is drawn whole', DRAWN_MAX, true],
    ['one step more is grouped instead', DRAWN_MAX + 1, false],
    ['a run of 10,000 steps is never laid out whole', 10_000, false],
  ])('%s', (_, count, want) => {
    expect(drawsWhole(count)).toBe(want);
  });
});

describe('statusGroups', () => {
  const withStatus = (status: string | undefined, n: number): GraphStep[] =>
    Array.from({ length: n }, (_, i) => ({
      ...step(`${status ?? 'none'}-${String(i)}`),
      ...(status === undefined ? {} : { status }),
    }));
  it.each<[string, GraphStep[], { status: string; count: number }[]]>([
    [
      'steps are counted by status, running and failed first, then succeeded',
      [...withStatus('succeeded', 9700), ...withStatus('failed', 3), ...withStatus('running', 2)],
      [
        { status: 'running', count: 2 },
        { status: 'failed', count: 3 },
        { status: 'succeeded', count: 9700 },
      ],
    ],
    [
      'statuses no step has are left out, and steps with none (no run yet) come last',
      [...withStatus(undefined, 4), ...withStatus('skipped', 1), ...withStatus('not_started', 2)],
      [
        { status: 'skipped', count: 1 },
        { status: 'not_started', count: 2 },
        { status: '', count: 4 },
      ],
    ],
    [
      'a status this build does not know follows the known ones',
      [...withStatus('waiting', 1), ...withStatus('succeeded', 1)],
      [
        { status: 'succeeded', count: 1 },
        { status: 'waiting', count: 1 },
      ],
    ],
    ['no steps, no groups', [], []],
  ])('%s', (_, steps, want) => {
    expect(statusGroups(steps)).toEqual(want);
  });
});

describe('graphWindow', () => {
  const names = (w: { steps: readonly GraphStep[] }): string[] => w.steps.map((s) => s.name);
  it('the first window holds the first steps, and one arrow leaves it in a chain', () => {
    const w = graphWindow(chain(250), 1);
    expect([names(w).at(0), names(w).length, w.page, w.windows, w.first, w.last, w.cut]).toEqual([
      's1',
      WINDOW_STEPS,
      1,
      3,
      1,
      100,
      1,
    ]);
  });
  it('a middle window of a chain loses an arrow at each end', () => {
    const w = graphWindow(chain(250), 2);
    expect([names(w).at(0), w.first, w.last, w.cut]).toEqual(['s101', 101, 200, 2]);
  });
  it('the last window holds what is left; a window past the end shows the last', () => {
    const w = graphWindow(chain(250), 7);
    expect([names(w).at(0), names(w).length, w.page, w.first, w.last, w.cut]).toEqual(['s201', 50, 3, 201, 250, 1]);
  });
  it('steps without dependencies lose no arrows; unknown names and repeats are no arrows', () => {
    const steps = [step('a'), step('b', 'a', 'a', 'gone'), step('c', 'c'), step('d', 'b')];
    expect([graphWindow(steps, 1, 2).cut, graphWindow(steps, 2, 2).cut, graphWindow(steps, 1, 4).cut]).toEqual([
      1, 1, 0,
    ]);
  });
  it('a graph without steps is one empty window', () => {
    expect(graphWindow([], 3)).toEqual({ steps: [], page: 1, windows: 1, first: 0, last: 0, cut: 0 });
  });
});
