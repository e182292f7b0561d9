import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => loadDag(yaml, { fileName: 'example' });
const errorsOf = (yaml: string): string[] => load(yaml).errors.map(formatIssue);

describe('router steps, rewritten as Dagu rewrites them at load', () => {
  it('gives each target the match as a precondition after its own, the router as a dependency, and continue on skipped', () => {
    const got = load(
      'steps:\n  - {id: r, type: router, value: " ${X} ", routes: {a: [t]}, continue_on: {failure: true}}\n  - {id: t, run: echo, depends: r, preconditions: {condition: "${Y}", expected: "1"}}',
    );
    expect(got.errors).toEqual([]);
    const [router, target] = got.dag.steps;
    expect([router?.command, router?.continueOn.skipped, router?.continueOn.failure]).toEqual(['true', true, true]);
    expect([target?.depends, target?.preconditions, target?.continueOn.skipped]).toEqual([
      ['r'],
      [
        { condition: '${Y}', expected: '1' },
        { condition: '${X}', expected: 'a' },
      ],
      true,
    ]);
  });

  it.each([
    {
      name: 'a target that is no step, and one in two routes',
      yaml: 'steps:\n  - {id: r, type: router, value: v, routes: {a: [b, gone], c: [b]}}\n  - {id: b, run: echo}',
      want: [
        'steps[0].routes.a: router "r" routes to "gone", which is no other step of this DAG',
        'steps[0].routes.c: step "b" is targeted by routes "a" and "c"; a step can be the target of one route',
      ],
    },
    {
      name: 'a router routing to itself',
      yaml: 'steps:\n  - {id: r, type: router, value: v, routes: {a: [r]}}',
      want: ['steps[0].routes.a: router "r" routes to "r", which is no other step of this DAG'],
    },
    {
      name: 'no value and no routes',
      yaml: 'steps:\n  - {id: r, type: router, routes: {}}',
      want: [
        'steps[0].value: router step requires a non-empty string value',
        'steps[0].routes: router step requires at least one route: a mapping of pattern to steps',
      ],
    },
    {
      name: 'a route that is not a list of names',
      yaml: 'steps:\n  - {id: r, type: router, value: v, routes: {a: b, " ": [b]}}\n  - {id: b, run: echo}',
      want: [
        'steps[0].routes.a: must be a non-empty list of step names',
        'steps[0].routes[" "]: route pattern cannot be empty',
      ],
    },
    {
      name: 'a router in a chain',
      yaml: 'type: chain\nsteps:\n  - {id: r, type: router, value: v, routes: {a: [b]}}\n  - {id: b, run: echo}',
      want: ['type: router steps need type: graph (a chain runs every step after the one before)'],
    },
    {
      name: 'value or routes on another step (Dagu ignores them)',
      yaml: 'steps:\n  - {id: r, run: echo, value: v}',
      want: ['steps[0].value: is read only on a router step (type: router)'],
    },
    {
      name: 'router.route with a key it does not take',
      yaml: 'steps:\n  - {id: r, action: router.route, with: {value: v, routes: {a: [b]}, default: [b]}}\n  - {id: b, run: echo}',
      want: ['steps[0].with.default: router.route takes value and routes only'],
    },
  ])('refuses $name', ({ yaml, want }) => {
    expect(errorsOf(yaml)).toEqual(want);
  });
});

describe('router steps in a steps mapping', () => {
  it('name their targets by key', () => {
    const got = load('steps:\n  r: {type: router, value: v, routes: {a: [b]}, timeout_sec: 1}\n  b: {run: echo}');
    expect(got.errors).toEqual([]);
    expect(got.dag.steps.map((step) => [step.name, step.command, step.depends, step.preconditions])).toEqual([
      ['r', 'true', [], []],
      ['b', 'echo', ['r'], [{ condition: 'v', expected: 'a' }]],
    ]);
  });
});
