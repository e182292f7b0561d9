/**
 * What a step's record says of the answers a person gave it, with Dagu 2.x's node field names
 * (v2.15.1 `api/v1/api.yaml` `Node`): approved, rejected, pushed back. Pure.
 */
import type { RunNode } from '../../core/resources/schemas.ts';

export interface PushBackEntry {
  iteration: number;
  by?: string;
  at?: string;
  inputs?: Record<string, string>;
}

export interface ApprovalFields {
  approvedAt?: string;
  approvedBy?: string;
  approvalInputs?: Record<string, string>;
  rejectedAt?: string;
  rejectedBy?: string;
  rejectionReason?: string;
  approvalIteration?: number;
  pushBackInputs?: Record<string, string>;
  pushBackHistory?: PushBackEntry[];
}

/**
 * Dagu's approve handler keys `approvalInputs` by the camel-case of each input name (`MY_NOTE`
 * is `myNote`, `stringutil.ScreamingSnakeToCamel`), while later steps read the name as given.
 */
export function screamingSnakeToCamel(name: string): string {
  const parts = name.split('_').filter((part) => part !== '');
  return parts
    .map((part, i) => {
      const lower = part.toLowerCase();
      return i === 0 ? lower : lower.charAt(0).toUpperCase() + lower.slice(1);
    })
    .join('');
}

const nonEmpty = (map: Record<string, string> | undefined): map is Record<string, string> =>
  map !== undefined && Object.keys(map).length > 0;

/**
 * The node's approval fields, each left out when the record has none. Kubedag keeps only the
 * last push-back a step re-ran for, so `pushBackHistory` lists that one (Dagu fills the list the
 * same way from a record that kept no history, `dagrun.NormalizePushBackHistory`).
 */
export function approvalFields(node: RunNode): ApprovalFields {
  const approvalInputs = nonEmpty(node.approvalInputs)
    ? Object.fromEntries(Object.entries(node.approvalInputs).map(([k, v]) => [screamingSnakeToCamel(k), v]))
    : undefined;
  const iteration = node.approvalIteration;
  const pushBack: PushBackEntry | undefined =
    iteration === undefined
      ? undefined
      : {
          iteration,
          ...(node.pushBackBy === undefined ? {} : { by: node.pushBackBy }),
          ...(node.pushBackAt === undefined ? {} : { at: node.pushBackAt }),
          ...(nonEmpty(node.pushBackInputs) ? { inputs: node.pushBackInputs } : {}),
        };
  return {
    ...(node.approvedAt === undefined ? {} : { approvedAt: node.approvedAt }),
    ...(node.approvedBy === undefined ? {} : { approvedBy: node.approvedBy }),
    ...(approvalInputs === undefined ? {} : { approvalInputs }),
    ...(node.rejectedAt === undefined ? {} : { rejectedAt: node.rejectedAt }),
    ...(node.rejectedBy === undefined ? {} : { rejectedBy: node.rejectedBy }),
    ...(node.rejectionReason === undefined ? {} : { rejectionReason: node.rejectionReason }),
    ...(iteration === undefined ? {} : { approvalIteration: iteration }),
    ...(nonEmpty(node.pushBackInputs) ? { pushBackInputs: node.pushBackInputs } : {}),
    ...(pushBack === undefined ? {} : { pushBackHistory: [pushBack] }),
  };
}
