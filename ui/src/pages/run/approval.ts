/**
 * What the run page says about approval steps (Dagu 2.x's `approval`), from /api/v1's nodes:
 * which steps wait for a person now, what each answer must give, and what was answered before.
 * Pure.
 */

/** The part of a /api/v1 node these functions read. */
export interface ApprovalNode {
  readonly step: {
    readonly name: string;
    readonly approval?: { prompt?: string; input: string[]; required: string[]; rewindTo?: string };
  };
  readonly status: number;
  readonly approvedAt?: string;
  readonly approvedBy?: string;
  readonly approvalInputs?: Record<string, string>;
  readonly rejectedAt?: string;
  readonly rejectedBy?: string;
  readonly rejectionReason?: string;
  readonly approvalIteration?: number;
}

/** Dagu 2.x's step status of a step that waits for a person. */
export const WAITING = 7;

/** The steps that wait for a person's answer now, in the run's order. */
export function waitingSteps<N extends ApprovalNode>(nodes: readonly N[]): N[] {
  return nodes.filter((n) => n.status === WAITING && n.step.approval !== undefined);
}

/** Whether any step of the definition has an approval gate (only then is /api/v1 asked). */
export function hasApprovalSteps(nodes: readonly { readonly step: { readonly approval?: unknown } }[]): boolean {
  return nodes.some((n) => n.step.approval !== undefined);
}

/** The required inputs left blank, which the server would refuse ("missing required inputs"). */
export function missingRequired(required: readonly string[], inputs: Readonly<Record<string, string>>): string[] {
  return required.filter((name) => (inputs[name] ?? '').trim() === '');
}

/** The inputs to send: the filled ones, as typed (a blank optional input is left out). */
export function filledInputs(inputs: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(inputs).filter(([, value]) => value.trim() !== ''));
}

/** A line per answer a step was given, for the record under the waiting steps. */
export function answerLine(node: ApprovalNode): string | undefined {
  const by = (who: string | undefined): string => (who === undefined || who === '' ? '' : ` by ${who}`);
  if (node.approvedAt !== undefined) {
    const inputs = Object.entries(node.approvalInputs ?? {}).map(([k, v]) => `${k}=${v}`);
    return `Approved${by(node.approvedBy)}${inputs.length === 0 ? '' : ` with ${inputs.join(', ')}`}`;
  }
  if (node.rejectedAt !== undefined) {
    const reason = node.rejectionReason === undefined || node.rejectionReason === '' ? '' : `: ${node.rejectionReason}`;
    return `Rejected${by(node.rejectedBy)}${reason}`;
  }
  return undefined;
}

export type AnswerAction = 'approve' | 'push-back' | 'reject';

/** What the page says once the server took an answer (the operator applies it a moment later). */
export function answeredMessage(action: AnswerAction, step: string): string {
  switch (action) {
    case 'approve':
      return `Approved ${step}: the run goes on.`;
    case 'push-back':
      return `Pushed ${step} back: its steps run again, then it waits for you once more.`;
    case 'reject':
      return `Rejected ${step}: the steps after it will not run.`;
  }
}
