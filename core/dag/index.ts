/** The DAG definition language: the one implementation used by operator, API server, CLI and tests. */
export { dagDetails, dagSummary, stepObject, type DagDetails, type DagSummary, type StepObject } from './api.ts';
export { splitCommand } from './command.ts';
export { expand, hasCommandSubstitution, type ExpandOptions, type Expansion, type StepReference } from './expand.ts';
export { formatIssue, type DagIssue } from './issues.ts';
export { loadDag, type DagLoad, type LoadOptions, type LocalDag } from './load.ts';
export * from './model.ts';
export { applyParamOverrides, applyParamsSchema, encodeParams, parseParamOverrides, tokenizeParams } from './params.ts';
export { SHARED_CONTAINER } from './executors.ts';
export { MAX_PARALLEL_ITEMS, plainStep } from './step.ts';
export { readsStderr } from './picked-outputs.ts';
export { FOREACH_INDEX, FOREACH_ITEM, FOREACH_KEY } from './dialect-foreach.ts';
export { nextFireTimes, nextStart, parseSchedule } from './schedule.ts';
export { dagJsonSchema } from './schema.ts';
export { dagNameProblem } from './validate.ts';
export { MAX_FILE_BYTES } from './yaml.ts';
export { durationMs, otelProtocol, otelUrl } from './otel.ts';
export type { OtelAttribute, OtelProtocol, OtelSettings } from './otel-model.ts';
export { dagRetryDelayMs } from './dag-retry.ts';
