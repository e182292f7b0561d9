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
  /** Asks the operator to retry a finished run; the value is a token the status echoes. */
  retry: `${GROUP}/retry`,
  /** On a run created by a retry under a new id: the DAGRun resource whose step states it starts from. */
  retryOf: `${GROUP}/retry-of`,
  /** With `retry`: the one step to run again. */
  retryStep: `${GROUP}/retry-step`,
  /** On a run its DAG's retryPolicy retried (Dagu 2.x's DAG-level retry_policy): how many times so far. */
  autoRetries: `${GROUP}/auto-retries`,
  /** The DAG name a run is listed under after its DAG was renamed (spec.dagName is immutable). */
  dagName: `${GROUP}/dag-name`,
  /** "true": the scheduler starts nothing from this DAG (the API's suspend). */
  suspended: `${GROUP}/suspended`,
  /** On a DAG with a catch-up window: the last scheduled minute the scheduler started or dropped (RFC 3339). */
  scheduleWatermark: `${GROUP}/schedule-watermark`,
  /** The YAML text last written through the API, and a digest of the spec it was parsed into. */
  specYaml: `${GROUP}/spec-yaml`,
  specDigest: `${GROUP}/spec-digest`,
  /**
   * On a run stopped by a restart tick: the id of the run that replaces it and when that run
   * starts. Kept on the run rather than in a timer, so a new leader finishes the restart.
   */
  restartRunId: `${GROUP}/restart-run-id`,
  restartAt: `${GROUP}/restart-at`,
  /**
   * On a sub-run of a traced run: the W3C traceparent of the calling step's span, which the
   * sub-run's spans join (Dagu passes it to a sub-DAG as TRACEPARENT).
   */
  traceparent: `${GROUP}/traceparent`,
  /**
   * The end of a run whose status the API refused even at its smallest (core/resources/ended.ts):
   * JSON, read as the status by every Kubedag cache. Written by the operator only then.
   */
  ended: `${GROUP}/ended`,
  /**
   * On a run the API server put back from the history store (to retry or edit it): the uid it
   * had when archived. Tells a restore cut short (to finish) from another run under its name,
   * and that its sub runs may still be in the store only.
   */
  restoredFrom: `${GROUP}/restored-from`,
  /**
   * Who asked, through the API, for a resource's latest change: `alice (basic)`
   * (core/resources/requested-by.ts). The API server writes with its own service account, so
   * without this kubectl and the web UI could not tell who did it. Runs the operator makes
   * (schedules, sub runs, restarts) carry none: spec.trigger says where they came from.
   */
  requestedBy: `${GROUP}/requested-by`,
  /** On a run: who asked for it to be created, in the same form; never changed afterwards (a stop changes requested-by only). */
  startedBy: `${GROUP}/started-by`,
} as const;
