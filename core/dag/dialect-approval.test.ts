import { describe, expect, it } from 'vitest';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';

const load = (yaml: string) => loadDag(yaml, { fileName: 'a' });
const errors = (yaml: string) => load(yaml).errors.map(formatIssue);

describe('a 2.x step approval', () => {
  it('is modelled with its prompt, inputs, required inputs and rewind target', () => {
    const step = load(
      'steps:\n  - {id: a, run: echo}\n  - {id: b, depends: [a], run: echo, approval: {prompt: ok?, input: [X, Y], required: [X], rewind_to: " a "}}',
    ).dag.steps[1];
    expect(step?.approval).toEqual({ prompt: 'ok?', input: ['X', 'Y'], required: ['X'], rewindTo: 'a' });
  });

  it('may be empty: a plain approve-or-reject gate', () => {
    expect(load('steps:\n  - {id: a, run: echo, approval: {}}').dag.steps[0]?.approval).toEqual({
      input: [],
      required: [],
    });
  });

  it.each([
    {
      name: 'a required input not among the inputs',
      yaml: 'steps:\n  - {run: echo, approval: {input: [A], required: [B]}}',
      want: ['steps[0].approval.required: required field "B" is not in input list'],
    },
    {
      name: 'an unknown key',
      yaml: 'steps:\n  - {run: echo, approval: {timeout: 5}}',
      want: ['steps[0].approval.timeout: unknown key (approval takes prompt, input, required, rewind_to)'],
    },
    {
      name: 'not a mapping',
      yaml: 'steps:\n  - {run: echo, approval: yes}',
      want: ['steps[0].approval: must be a mapping'],
    },
    {
      name: 'a rewind target that does not exist',
      yaml: 'steps:\n  - {name: a, run: echo, approval: {rewind_to: nope}}',
      want: ['steps[0].approval.rewind_to: step a approval.rewind_to references non-existent step nope'],
    },
    {
      name: 'a rewind target downstream',
      yaml: 'steps:\n  - {name: a, run: echo, approval: {rewind_to: b}}\n  - {name: b, depends: [a], run: echo}',
      want: [
        'steps[0].approval.rewind_to: step a approval.rewind_to must reference the step itself or an upstream dependency',
      ],
    },
    {
      name: 'a handler with approval',
      yaml: 'steps: [{run: echo}]\nhandler_on: {failure: {run: echo, approval: {}}}',
      want: [
        'handler_on.failure.approval: Dagu 2.x feature approval on a handler_on step is not supported: a handler runs after the steps have ended, with no run left for a person to hold; put the approval on a step under steps:',
      ],
    },
  ])('refuses $name', ({ yaml, want }) => {
    expect(errors(yaml)).toEqual(want);
  });

  it('reads a rewind target by id', () => {
    expect(
      errors('steps:\n  - {id: a, name: first, run: echo}\n  - {depends: [a], run: echo, approval: {rewind_to: a}}'),
    ).toEqual([]);
  });
});
