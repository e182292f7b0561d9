/**
 * /api/v1's approve, reject and push-back of a waiting step, of a run or a sub run: the answer
 * goes into the run's spec (`spec.approvals`), guarded by the resource version it was decided
 * from, so that of two people answering at once one writes and the other is told the step no
 * longer waits; the operator applies it. Permission `run`; audited as every write is.
 */
import Type, { type Static } from 'typebox';
import { isConflict } from '../../core/kube/errors.ts';
import { statusRecords } from '../../core/resources/run-records.ts';
import { StepStatus } from '../../core/resources/status.ts';
import type { Requester } from '../../core/resources/requested-by.ts';
import { recordedRunAt, type Cluster } from '../cluster.ts';
import { ApiError } from '../errors.ts';
import { requestBody } from '../schemas.ts';
import { runIdentity } from '../views/identity.ts';
import { decideAnswer, type ApprovalAction } from './approval.ts';

export const stepParams = Type.Object({ name: Type.String(), dagRunId: Type.String(), stepName: Type.String() });
export const subStepParams = Type.Object({
  name: Type.String(),
  dagRunId: Type.String(),
  subDAGRunId: Type.String(),
  stepName: Type.String(),
});
export const approvalBody = requestBody(
  {
    inputs: Type.Optional(Type.Record(Type.String(), Type.String())),
    reason: Type.Optional(Type.String()),
  },
  {},
);
export const answered = Type.Object({
  dagRunId: Type.String(),
  stepName: Type.String(),
  resumed: Type.Optional(Type.Boolean()),
  approvalIteration: Type.Optional(Type.Integer()),
  subDAGRunId: Type.Optional(Type.String()),
});

interface Target {
  readonly name: string;
  readonly dagRunId: string;
  readonly subDAGRunId?: string;
  readonly stepName: string;
}
interface Body {
  readonly inputs?: Record<string, string>;
  readonly reason?: string;
}

/** A write another writer beat (the operator's status writes count): decided again from a fresh read. */
const ATTEMPTS = 5;

export interface Answering {
  readonly cluster: Cluster;
  readonly by: Requester;
  readonly now: () => Date;
}

function reply(at: Target, action: ApprovalAction, iteration: number, others: boolean): Static<typeof answered> {
  const id = { dagRunId: at.subDAGRunId ?? at.dagRunId, stepName: at.stepName };
  if (action === 'reject') return id;
  if (action === 'approve') return { ...id, resumed: !others };
  const sub = at.subDAGRunId === undefined ? {} : { subDAGRunId: at.subDAGRunId };
  return { ...id, approvalIteration: iteration + 1, resumed: true, ...sub };
}

export async function answer(
  { cluster, by, now }: Answering,
  at: Target,
  action: ApprovalAction,
  body: Body,
): Promise<Static<typeof answered>> {
  for (let attempt = 1; ; attempt += 1) {
    const run = await recordedRunAt(cluster, at);
    const dag = await cluster.definitions.dag(run);
    const nodes = statusRecords(run.status);
    const decision = decideAnswer({
      dagName: runIdentity(run).name,
      stepName: at.stepName,
      step: dag?.steps.find((s) => s.name === at.stepName),
      node: nodes.find((n) => n.name === at.stepName),
      pending: run.spec.approvals?.[at.stepName],
      action,
      inputs: body.inputs ?? {},
      ...(body.reason === undefined ? {} : { reason: body.reason }),
      by: by.user,
      at: now().toISOString(),
    });
    if (decision.kind === 'refuse') throw new ApiError(decision.error, decision.message);
    try {
      await cluster.writer.answerApproval(run, at.stepName, decision.answer, by);
    } catch (error) {
      if (!isConflict(error)) throw error;
      if (attempt >= ATTEMPTS)
        throw new ApiError('bad_request', 'DAG-run state changed before the step could be answered');
      continue;
    }
    const others = nodes.some((n) => n.name !== at.stepName && n.status === StepStatus.Waiting);
    return reply(at, action, decision.answer.iteration, others);
  }
}

export const ACTIONS: readonly [string, ApprovalAction][] = [
  ['approve', 'approve'],
  ['reject', 'reject'],
  ['push-back', 'pushBack'],
];
