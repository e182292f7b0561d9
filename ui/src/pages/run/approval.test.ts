import { describe, expect, it } from 'vitest';
import {
  answerLine,
  answeredMessage,
  filledInputs,
  missingRequired,
  waitingSteps,
  type ApprovalNode,
} from './approval.ts';

const gate = { prompt: 'Ship?', input: ['TICKET', 'NOTE'], required: ['TICKET'] };
const node = (name: string, status: number, more: Partial<ApprovalNode> = {}): ApprovalNode => ({
  step: { name, approval: gate },
  status,
  ...more,
});

describe('approval steps on the run page', () => {
  it('lists the steps that wait (7) and have a gate, in order', () => {
    const nodes = [node('a', 7), node('b', 1), { step: { name: 'c' }, status: 7 }, node('d', 7)];
    expect(waitingSteps(nodes).map((n) => n.step.name)).toEqual(['a', 'd']);
  });

  it.each<{ inputs: Record<string, string>; want: string[] }>([
    { inputs: {}, want: ['TICKET'] },
    { inputs: { TICKET: '   ' }, want: ['TICKET'] },
    { inputs: { TICKET: 'T-1' }, want: [] },
  ])('finds required inputs left blank in $inputs', ({ inputs, want }) => {
    expect(missingRequired(gate.required, inputs)).toEqual(want);
  });

  it('sends only the inputs filled in', () => {
    expect(filledInputs({ TICKET: 'T-1', NOTE: ' ' })).toEqual({ TICKET: 'T-1' });
  });

  it.each([
    { more: {}, want: undefined },
    {
      more: { approvedAt: 't', approvedBy: 'ana', approvalInputs: { ticket: 'T-1' } },
      want: 'Approved by ana with ticket=T-1',
    },
    { more: { approvedAt: 't' }, want: 'Approved' },
    { more: { rejectedAt: 't', rejectedBy: 'bo', rejectionReason: 'not now' }, want: 'Rejected by bo: not now' },
  ])('says $want of an answer', ({ more, want }) => {
    expect(answerLine(node('a', 4, more))).toBe(want);
  });

  it('tells a person what each answer does', () => {
    expect(answeredMessage('approve', 'review')).toBe('Approved review: the run goes on.');
    expect(answeredMessage('reject', 'review')).toContain('will not run');
  });
});
