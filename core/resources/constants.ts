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
} as const;

export const ANNOTATIONS = {
  fileName: `${GROUP}/file-name`,
} as const;
