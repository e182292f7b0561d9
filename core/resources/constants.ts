/** The API group and version of Kubedag's custom resources, and the labels it sets. */
export const GROUP = 'kubedag.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const LABELS = {
  /** The DAG file name a resource stands for (also an annotation, which has no length limit). */
  fileName: `${GROUP}/file-name`,
  dag: `${GROUP}/dag`,
  runId: `${GROUP}/run-id`,
  step: `${GROUP}/step`,
  attempt: `${GROUP}/attempt`,
  /** The DAGRun resource a Pod belongs to; what the operator's Pod informer selects on. */
  run: `${GROUP}/run`,
} as const;

export const ANNOTATIONS = {
  fileName: `${GROUP}/file-name`,
  /** The exact step name of a Pod (labels may only hold a derived form). */
  step: `${GROUP}/step-name`,
  /** Set on a step Pod once its logs are safe in the log store. */
  archived: `${GROUP}/logs-archived`,
} as const;
