import { describe, expect, it } from 'vitest';
import { RunStatus, StepStatus } from '../../../core/resources/status.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { observeChild } from './observed.ts';

describe('observeChild', () => {
  it("reports a finished child's steps with their output variables and declared outputs, for a foreach's collect", () => {
    const child = dagRun('each-r1-0')
      .of('each-foreach', 'c0')
      .status({
        status: RunStatus.Succeeded,
        statusLabel: 'succeeded',
        finishedAt: '2026-11-29T14:00:00Z',
        nodes: [
          {
            name: 'summarize',
            status: StepStatus.Succeeded,
            statusLabel: 'succeeded',
            outputs: { BODY_RESULT: 'one' },
            stepOutputs: { markdown: '# one' },
          },
          { name: 'quiet', status: StepStatus.Succeeded, statusLabel: 'succeeded' },
        ],
      })
      .build();
    expect(observeChild(child).report?.childNodes).toEqual([
      { name: 'summarize', outputs: { BODY_RESULT: 'one' }, stepOutputs: { markdown: '# one' } },
      { name: 'quiet' },
    ]);
  });
});
