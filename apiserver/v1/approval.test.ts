import { describe, expect, it } from 'vitest';
import type { Step } from '../../core/dag/index.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import { decideAnswer, type AnswerFacts } from './approval.ts';

const step = { name: 'review', approval: { input: ['TICKET'], required: ['TICKET'] } } as unknown as Step;
const waiting: RunNode = { name: 'review', status: 7, statusLabel: 'waiting' };
const facts = (over: Partial<AnswerFacts> = {}): AnswerFacts => ({
  dagName: 'ship',
  stepName: 'review',
  step,
  node: waiting,
  pending: undefined,
  action: 'approve',
  inputs: { TICKET: 'T-1' },
  by: 'ana',
  at: '2026-11-29T10:00:00.000Z',
  ...over,
});

describe('answering a step', () => {
  const cases: { name: string; over: Partial<AnswerFacts>; want: string[] }[] = [
    {
      name: 'a step the DAG does not have',
      over: { step: undefined },
      want: ['not_found', 'step review not found in DAG ship'],
    },
    {
      name: 'a step that does not wait',
      over: { node: { ...waiting, status: 4, statusLabel: 'succeeded' } },
      want: ['bad_request', 'step review is not waiting for approval (status: succeeded)'],
    },
    {
      name: 'a step not started',
      over: { node: undefined },
      want: ['bad_request', 'step review is not waiting for approval (status: not_started)'],
    },
    {
      name: 'a step someone answered already (two people at once)',
      over: { pending: { iteration: 0, action: 'reject' as const, at: 'x' } },
      want: ['bad_request', 'step review is not waiting for approval (status: answered)'],
    },
    {
      name: 'an approval without a required input',
      over: { inputs: { TICKET: ' ' } },
      want: ['bad_request', 'missing required inputs: [TICKET]'],
    },
    {
      name: 'a push-back without a required input',
      over: { action: 'pushBack', inputs: {} },
      want: ['bad_request', 'missing required inputs: [TICKET]'],
    },
  ];
  it.each(cases)('refuses $name', ({ over, want }) => {
    const decision = decideAnswer(facts(over));
    expect(decision.kind === 'refuse' ? [decision.error, decision.message] : decision).toEqual(want);
  });

  it('writes an approval for the iteration the step waits in', () => {
    expect(decideAnswer(facts({ node: { ...waiting, approvalIteration: 2 } }))).toEqual({
      kind: 'write',
      answer: { iteration: 2, action: 'approve', by: 'ana', at: '2026-11-29T10:00:00.000Z', inputs: { TICKET: 'T-1' } },
    });
  });

  it('writes a rejection with its reason and needs no inputs', () => {
    expect(decideAnswer(facts({ action: 'reject', inputs: {}, reason: 'no' }))).toMatchObject({
      kind: 'write',
      answer: { iteration: 0, action: 'reject', reason: 'no' },
    });
  });

  it('answers again once the pending answer is of an earlier iteration', () => {
    const pending = { iteration: 0, action: 'pushBack' as const, at: 'x' };
    expect(decideAnswer(facts({ pending, node: { ...waiting, approvalIteration: 1 } })).kind).toBe('write');
  });
});
