/** The custom resources as TypeScript objects, typed from schemas.ts. */
import type { V1ObjectMeta } from '@kubernetes/client-node';
import type {
  DagQueueSpec,
  DagQueueStatus,
  DagRunSegmentSpec,
  DagRunSpec,
  DagRunStatus,
  DagStatus,
} from './schemas.ts';

export interface DagResource {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: Record<string, unknown>;
  status?: DagStatus;
}

export interface DagRunResource {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: DagRunSpec;
  status?: DagRunStatus;
}

export interface DagRunSegmentResource {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: DagRunSegmentSpec;
}

export interface DagQueueResource {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
  spec: DagQueueSpec;
  status?: DagQueueStatus;
}

/** The documents of a DAG file back from a resource spec: the DAG, then its local DAGs. */
export function specDocuments(spec: Record<string, unknown>): Record<string, unknown>[] {
  const { localDags, ...main } = spec;
  return [main, ...(Array.isArray(localDags) ? (localDags as Record<string, unknown>[]) : [])];
}

/** A person's answer to a step that waits for approval, kept in the run's spec by step name. */
export type ApprovalAnswer = NonNullable<DagRunSpec['approvals']>[string];
