/**
 * The custom resources' spec and status as TypeBox definitions: the one source for the CRD
 * manifests (crds/, generated) and for the TypeScript types the operator and API server use.
 *
 * Status field names follow the API's DAG run details, so the API maps them without renaming.
 */
import Type, { type Static } from 'typebox';
import { dagSchema, twoXJsonSchemas } from '../dag/schema.ts';
import { mergeStructural } from './dialect-merge.ts';
import { structural } from './structural.ts';
import { conditionSchema, preserved, text, timestamp } from './schema-fields.ts';
import { attemptSchema, dagRunStatusSchema, nodeSchema } from './run-status-schema.ts';

export { conditionSchema } from './schema-fields.ts';
export { ATTEMPTS_KEPT, dagRunStatusSchema } from './run-status-schema.ts';

/**
 * The DAG resource's spec is the DAG document as a user writes it. Fields with one shape get
 * their type (so `kubectl apply` rejects `timeoutSec: "30"` at once); polymorphic ones and
 * unknown keys are preserved for core/dag, which reports problems in the status.
 */
const dagBody = mergeStructural(structural(dagSchema), structural(twoXJsonSchemas().dag));
export const dagSpecSchema = Type.Unsafe<Record<string, unknown>>({
  ...dagBody,
  description: 'A Dagu-format DAG as written in its file; later documents of the file under localDags.',
  'x-kubernetes-preserve-unknown-fields': true,
  properties: {
    ...(dagBody.properties as Record<string, unknown>),
    localDags: Type.Array(preserved('A DAG callable by name from this one.'), {
      description: 'The later documents of a multi-document DAG file.',
    }),
  },
});

/** A whole DAG definition kept as written; typing it again per field would triple the CRD. */
function definitionObject(description: string): Record<string, unknown> {
  return { type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true };
}

export const dagStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ description: 'Generation this status describes.' })),
  valid: Type.Optional(Type.Boolean({ description: 'The definition loads without errors.' })),
  errors: Type.Optional(Type.Array(Type.String(), { description: 'Validation errors as `path: message`.' })),
  warnings: Type.Optional(Type.Array(Type.String(), { description: 'Warnings such as deprecated keys.' })),
  suspended: Type.Optional(Type.Boolean({ description: 'The scheduler creates no runs while true.' })),
  schedule: Type.Optional(text('Start expressions, comma-separated, for display.')),
  nextRun: Type.Optional(timestamp('Next scheduled start')),
  latestRun: Type.Optional(
    Type.Object({
      resourceName: text('DAGRun resource name.'),
      dagRunId: text('Run id.'),
      status: Type.Integer({ minimum: 0, maximum: 8, description: 'Run status 0-8.' }),
      statusLabel: text('Run status label.'),
      queuedAt: Type.Optional(timestamp('Queued')),
      startedAt: Type.Optional(timestamp('Start')),
      finishedAt: Type.Optional(timestamp('End')),
      params: Type.Optional(text('Effective parameters, JSON-encoded.')),
    }),
  ),
  conditions: Type.Optional(
    Type.Array(conditionSchema, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  ),
});

const immutable = { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }] };
/** Set once (by whoever creates the run, or by the operator on first sight), then fixed. */
const writeOnce = immutable;

/**
 * Where a dagRef run's frozen definition is (a DAGRunSegment it owns), with the few values of
 * it that are read for many runs at once, without loading any definition: queue placement,
 * retention, and whether anything is owed once the run has ended.
 */
const frozenDefinitionSchema = Type.Object(
  {
    segment: text('The DAGRunSegment (owned by this run) whose spec.definition is the frozen definition.'),
    queue: Type.Optional(text("The definition's `queue`, when it names one.")),
    maxActiveRuns: Type.Optional(
      Type.Integer({ description: "The definition's maxActiveRuns (its default when it says nothing)." }),
    ),
    histRetentionDays: Type.Optional(
      Type.Integer({ description: "The definition's histRetentionDays (its default when it says nothing)." }),
    ),
    histRetentionRuns: Type.Optional(
      Type.Integer({
        description: "The definition's histRetentionRuns (Dagu 2.x's hist_retention_runs), when it sets one.",
      }),
    ),
    retryPolicy: Type.Optional(
      Type.Object(
        {
          limit: Type.Integer({ minimum: 0 }),
          intervalSec: Type.Integer({ minimum: 1 }),
          backoff: Type.Optional(Type.Number()),
          maxIntervalSec: Type.Integer({ minimum: 1 }),
        },
        { description: "The definition's DAG-level retryPolicy (Dagu 2.x's retry_policy), when it sets one." },
      ),
    ),
    afterEnd: Type.Optional(
      Type.Boolean({
        description:
          'The definition asks for work once the run has ended (a trace export, mails, removing its container).',
      }),
    ),
  },
  {
    description:
      'The frozen definition of a dagRef run, kept out of the DAGRun (every status write rewrites the whole object).',
    ...writeOnce,
  },
);

/** A person's answer to a step waiting for approval (the API server writes it; the operator applies it). */
const approvalAnswerSchema = Type.Object({
  iteration: Type.Integer({ minimum: 0, description: 'The approval iteration (push-backs before) the answer is for.' }),
  action: Type.Enum(['approve', 'reject', 'pushBack'], { description: 'What the person decided.' }),
  by: Type.Optional(Type.String({ description: 'Who answered.' })),
  at: Type.String({ format: 'date-time', description: 'When.' }),
  inputs: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Inputs given with the answer.' })),
  reason: Type.Optional(Type.String({ description: 'The reason given with a rejection.' })),
});

export const dagRunSpecSchema = Type.Object(
  {
    dagRef: Type.Optional(
      Type.Object(
        { name: text('A DAG resource in the same namespace.') },
        { description: 'The DAG to run.', ...immutable },
      ),
    ),
    definition: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        ...definitionObject('An inline DAG definition (as in a DAG resource spec), instead of dagRef.'),
        ...immutable,
      }),
    ),
    dagName: Type.Optional(Type.String({ description: 'The DAG name the run is listed under.', ...writeOnce })),
    dagRunId: Type.Optional(
      Type.String({
        description: 'Run id (^[-a-zA-Z0-9_]+$, at most 64).',
        pattern: '^[-a-zA-Z0-9_]+$',
        maxLength: 64,
        ...writeOnce,
      }),
    ),
    params: Type.Optional(
      Type.String({ description: 'Parameter overrides: JSON object or array, or NAME=value text.', ...immutable }),
    ),
    snapshot: Type.Optional(
      Type.Unsafe<Record<string, unknown>>({
        ...definitionObject(
          'The definition frozen when the run was created, in runs made before frozenDefinition; still read, no longer written.',
        ),
        ...writeOnce,
      }),
    ),
    frozenDefinition: Type.Optional(frozenDefinitionSchema),
    trigger: Type.Optional(
      Type.Enum(['api', 'kubectl', 'schedule', 'retry', 'queue', 'sub-run', 'restart'], {
        description: 'What created the run.',
        ...immutable,
      }),
    ),
    queue: Type.Optional(Type.String({ description: 'Queue the run goes through.', ...immutable })),
    enqueue: Type.Optional(Type.Boolean({ description: 'Start queued (status 5) instead of at once.', ...immutable })),
    parent: Type.Optional(
      Type.Object(
        { name: text('DAG name.'), dagRunId: text('Run id.') },
        { description: 'Direct parent of a sub-DAG run.', ...immutable },
      ),
    ),
    root: Type.Optional(
      Type.Object(
        { name: text('DAG name.'), dagRunId: text('Run id.') },
        { description: 'Root run of a sub-DAG run.', ...immutable },
      ),
    ),
    stop: Type.Optional(Type.Boolean({ description: 'Desired state: true stops the run.' })),
    approvals: Type.Optional(
      Type.Record(Type.String(), approvalAnswerSchema, {
        description:
          "People's answers to steps waiting for approval, by step name: the latest per step. The operator applies an answer to the step when its iteration is the one the step waits in.",
      }),
    ),
  },
  {
    description: 'One run of a DAG. Immutable except stop and approvals.',
    'x-kubernetes-validations': [
      { rule: 'has(self.dagRef) != has(self.definition)', message: 'set exactly one of dagRef and definition' },
      // An inline run's definition is its frozen one; a run frozen the old way keeps its snapshot.
      {
        rule: '!has(self.frozenDefinition) || (has(self.dagRef) && !has(self.snapshot))',
        message: 'frozenDefinition is for dagRef runs without a snapshot',
      },
      {
        rule: '!has(oldSelf.frozenDefinition) || has(self.frozenDefinition)',
        message: 'frozenDefinition cannot be removed',
      },
      ...['dagRef', 'definition', 'params', 'trigger', 'queue', 'enqueue', 'parent', 'root'].map((field) => ({
        rule: `has(self.${field}) == has(oldSelf.${field})`,
        message: `${field} cannot be added or removed`,
      })),
    ],
  },
);

/**
 * An immutable piece of a run kept beside its DAGRun, so that the DAGRun (rewritten at every
 * status write) stays small whatever the run's size: a sealed batch of finished step records
 * (`<run>-steps-<index>`), or the run's frozen definition. Written once, never updated.
 */
export const dagRunSegmentSpecSchema = Type.Object(
  {
    run: text('The DAGRun resource this segment belongs to (also its owner).'),
    index: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Order among the run's step segments: a later segment's record of a step, and any record in the run's status, supersede an earlier one.",
      }),
    ),
    nodes: Type.Optional(
      Type.Array(nodeSchema, { description: "Finished step records, sealed out of the run's status." }),
    ),
    definition: Type.Optional(
      Type.Unsafe<Record<string, unknown>>(definitionObject('The definition frozen when the run was created.')),
    ),
  },
  { description: 'Immutable once created.', ...immutable },
);

export const dagQueueSpecSchema = Type.Object({
  maxConcurrency: Type.Integer({ minimum: 1, description: 'Most runs of this queue running at once.' }),
});

export const dagQueueStatusSchema = Type.Object({
  running: Type.Optional(Type.Integer({ minimum: 0, description: 'Runs running now.' })),
  queued: Type.Optional(Type.Integer({ minimum: 0, description: 'Runs waiting.' })),
});

export type DagStatus = Static<typeof dagStatusSchema>;
export type DagRunSpec = Static<typeof dagRunSpecSchema>;
export type FrozenDefinition = Static<typeof frozenDefinitionSchema>;
export type DagRunStatus = Static<typeof dagRunStatusSchema>;
export type RunNode = Static<typeof nodeSchema>;
export type AttemptRecord = Static<typeof attemptSchema>;
export type DagRunSegmentSpec = Static<typeof dagRunSegmentSpecSchema>;
export type DagQueueSpec = Static<typeof dagQueueSpecSchema>;
export type DagQueueStatus = Static<typeof dagQueueStatusSchema>;
export type Condition = Static<typeof conditionSchema>;
