import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const errorsOf = (yaml: string): string[] => loadDag(yaml, { fileName: 'example' }).errors.map(formatIssue);
const WHY = 'is not supported: Kubedag runs only its built-in executors';
const ACTIONS = 'actions:\n  webhook.send: {input_schema: {type: object}, template: {run: echo hi}}\n';
const DECLARED = `actions: Dagu 2.x feature actions (custom action packages) ${WHY}`;

describe('custom actions and step types of a 2.x file', () => {
  it.each([
    [
      'an action declared under actions',
      `${ACTIONS}steps:\n  - {id: s, action: webhook.send, with: {url: x}}`,
      [`steps[0].action: Dagu 2.x feature custom action webhook.send (declared under actions) ${WHY}`, DECLARED],
    ],
    [
      'a declared action in a handler',
      `${ACTIONS}steps: [{id: s, run: echo}]\nhandler_on: {failure: {action: webhook.send}}`,
      [
        `handler_on.failure.action: Dagu 2.x feature custom action webhook.send (declared under actions) ${WHY}`,
        DECLARED,
      ],
    ],
    [
      'a declared action in a parallel group of steps',
      `${ACTIONS}steps:\n  - [{id: a, run: echo}, {id: b, action: webhook.send}]`,
      [`steps[0][1].action: Dagu 2.x feature custom action webhook.send (declared under actions) ${WHY}`, DECLARED],
    ],
    [
      'an action in a foreach body (a DAG of its own, without the declarations) as unknown, naming custom actions,',
      `${ACTIONS}steps:\n  - id: each\n    foreach: {items: [a], steps: [{id: b, action: webhook.send}]}`,
      [
        DECLARED,
        expect.stringMatching(
          /^steps\[0\]\.foreach\.steps\[0\]\.action: unknown action "webhook\.send" .*; a custom action, declared under actions:, is not run by Kubedag\)$/,
        ),
      ],
    ],
    [
      'a step type declared under step_types',
      'step_types:\n  greet: {type: command, input_schema: {type: object}, template: {command: echo hi}}\nsteps:\n  - {id: s, type: greet, with: {message: hi}}',
      [
        `steps[0].type: Dagu 2.x feature custom step type greet (declared under step_types) ${WHY}`,
        `step_types: Dagu 2.x feature step_types (custom step types) ${WHY}`,
      ],
    ],
    [
      'an action declared nowhere in the file',
      'steps:\n  - {id: s, action: webhook.send}',
      [
        expect.stringMatching(
          /^steps\[0\]\.action: unknown action "webhook\.send" \(Kubedag runs: exec, .*; a custom action, declared under actions:, is not run by Kubedag\)$/,
        ),
      ],
    ],
  ])('refuses %s by its feature', (_name, yaml, want) => {
    expect(errorsOf(yaml)).toEqual(want);
  });

  it('runs a built-in action whose name is not declared', () => {
    expect(errorsOf(`${ACTIONS}steps:\n  - {id: s, action: noop}`)).toEqual([DECLARED]);
  });
});
