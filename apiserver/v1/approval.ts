/**
 * Whether a person may answer a step of a run, and the answer to write (Dagu 2.x's approve,
 * reject and push-back, v2.15.1 `internal/service/frontend/api/v1/dagruns.go`, with its
 * messages). Pure: the route gathers the run, its step and record, the answer already pending,
 * and writes what this decides (docs/decisions/2026-11-29-approval.md).
 */
import type { Step } from '../../core/dag/index.ts';
import type { RunNode } from '../../core/resources/schemas.ts';
import { StepStatus } from '../../core/resources/status.ts';

import type { ApprovalAnswer } from '../../core/resources/types.ts';
export type ApprovalAction = ApprovalAnswer['action'];

export interface AnswerFacts {
  readonly dagName: string;
  readonly stepName: string;
  /** The step in the run's definition, if it has one of that name. */
  readonly step: Step | undefined;
  /** The step's record in the run, if it has started. */
  readonly node: RunNode | undefined;
  /** The answer the run's spec already holds for this step, if any. */
  readonly pending: ApprovalAnswer | undefined;
  readonly action: ApprovalAction;
  readonly inputs: Readonly<Record<string, string>>;
  readonly reason?: string;
  readonly by: string;
  readonly at: string;
}

export type AnswerDecision =
  | { readonly kind: 'write'; readonly answer: ApprovalAnswer }
  | { readonly kind: 'refuse'; readonly error: 'not_found' | 'bad_request'; readonly message: string };

const refuse = (error: 'not_found' | 'bad_request', message: string): AnswerDecision => ({
  kind: 'refuse',
  error,
  message,
});

/** Why the answer cannot be given, if it cannot. */
function refusal(facts: AnswerFacts): AnswerDecision | undefined {
  const { step, node, stepName } = facts;
  if (step === undefined) return refuse('not_found', `step ${stepName} not found in DAG ${facts.dagName}`);
  const iteration = node?.approvalIteration ?? 0;
  // An answer written and not yet applied: the step still says waiting, but someone answered it.
  const answered = facts.pending?.iteration === iteration;
  if (node?.status !== StepStatus.Waiting || answered) {
    const label = answered ? 'answered' : (node?.statusLabel ?? 'not_started');
    return refuse('bad_request', `step ${stepName} is not waiting for approval (status: ${label})`);
  }
  if (step.approval === undefined)
    return refuse('bad_request', `step ${stepName} does not have approval configuration`);
  if (facts.action === 'reject') return undefined;
  const missing = step.approval.required.filter((name) => (facts.inputs[name] ?? '').trim() === '');
  return missing.length === 0 ? undefined : refuse('bad_request', `missing required inputs: [${missing.join(' ')}]`);
}

export function decideAnswer(facts: AnswerFacts): AnswerDecision {
  const refused = refusal(facts);
  if (refused !== undefined) return refused;
  const inputs = Object.keys(facts.inputs).length === 0 ? {} : { inputs: { ...facts.inputs } };
  const reason = facts.reason === undefined || facts.reason === '' ? {} : { reason: facts.reason };
  return {
    kind: 'write',
    answer: {
      iteration: facts.node?.approvalIteration ?? 0,
      action: facts.action,
      by: facts.by,
      at: facts.at,
      ...(facts.action === 'reject' ? reason : inputs),
    },
  };
}
