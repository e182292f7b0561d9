// Alone in its module: operator/config.ts reads it, and the enqueue decisions import the pods'
// modules, which read the config.
/** Runs created per reconcile when the operator does not say (its `--enqueue-batch`). */
export const ENQUEUE_BATCH = 50;
