/**
 * The custom resources' spec and status as TypeBox definitions: the one source for the CRD
 * manifests (crds/, generated) and for the TypeScript types the operator and API server use.
 *
 * Status field names follow the API's DAG run details, so the API maps them without renaming.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { dagSchema, twoXJsonSchemas } from '../dag/schema.ts';
import { mergeStructural } from './dialect-merge.ts';
import { KEEP_UNKNOWN } from '../dag/kube-object.ts';
import { definitionName } from '../dag/schema-builders.ts';

/** A field kept exactly as written; core/dag validates it. */
const preserved = (description: string): TSchema =>
  Type.Unsafe<unknown>({ type: 'object', description, 'x-kubernetes-preserve-unknown-fields': true });
const text = (description: string): ReturnType<typeof Type.String> => Type.String({ description });
const timestamp = (description: string): ReturnType<typeof Type.String> =>
  Type.String({ description: `${description} (RFC 3339 UTC; empty when not yet).` });

/** Kubernetes API conventions condition. */
export const conditionSchema = Type.Object({
  type: text('Condition type, e.g. Valid or Running.'),
  status: Type.Enum(['True', 'False', 'Unknown'], { description: 'Whether the condition holds.' }),
  reason: text('One-word CamelCase reason.'),
  message: text('Human-readable detail.'),
  lastTransitionTime: text('When status last changed (RFC 3339).'),
  observedGeneration: Type.Optional(Type.Integer({ description: 'Generation the condition was computed for.' })),
});

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

const stringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

/** What a step with `approval` records of the answers it was given (Dagu 2.x's node fields). */
const approvalRecordFields = {
  approvalIteration: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Push-backs so far of the approval step this step re-runs for.' }),
  ),
  approvedAt: Type.Optional(timestamp('When a person approved the step')),
  approvedBy: Type.Optional(text('Who approved the step.')),
  approvalInputs: Type.Optional(stringMap('Inputs given with the approval; later steps read them as variables.')),
  rejectedAt: Type.Optional(timestamp('When a person rejected the step')),
  rejectedBy: Type.Optional(text('Who rejected the step.')),
  rejectionReason: Type.Optional(text('The reason given with the rejection.')),
  pushBackInputs: Type.Optional(stringMap('Inputs of the push-back this attempt re-runs for, as variables.')),
  pushBackBy: Type.Optional(text('Who pushed the step back, for the re-run this record is of.')),
  pushBackAt: Type.Optional(timestamp('When the step was pushed back')),
};

/** How many attempts a step's node keeps in `attempts`: a step repeating without end must not grow the run. */
export const ATTEMPTS_KEPT = 20;

const attemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 0, description: 'The attempt number, as in `attempt` and the Pod name.' }),
  startedAt: timestamp('Start'),
  finishedAt: Type.Optional(timestamp('End')),
  status: Type.Integer({
    minimum: 0,
    maximum: 6,
    description:
      'How the attempt ended, as step statuses are numbered (1 while it runs; 2 for an attempt that failed and was retried).',
  }),
  exitCode: Type.Optional(Type.Integer({ description: 'Exit code of the attempt, when it reported one.' })),
});

const nodeSchema = Type.Object({
  name: text('Step name.'),
  status: Type.Integer({
    minimum: 0,
    maximum: 8,
    description:
      'Step status: 0 not started, 1 running, 2 failed, 3 canceled, 4 succeeded, 5 skipped, 6 partially succeeded, 7 waiting for a person (approval), 8 rejected by one.',
  }),
  statusLabel: text('Step status label.'),
  startedAt: Type.Optional(timestamp('Start')),
  finishedAt: Type.Optional(timestamp('End')),
  retryCount: Type.Optional(Type.Integer({ minimum: 0, description: 'Retries so far.' })),
  doneCount: Type.Optional(Type.Integer({ minimum: 0, description: 'Executions of a repeating step.' })),
  error: Type.Optional(text('Why the step failed, was skipped or canceled.')),
  exitCode: Type.Optional(Type.Integer({ description: 'Exit code of the last attempt.' })),
  attempt: Type.Optional(Type.Integer({ minimum: 0, description: 'Current attempt number; part of the Pod name.' })),
  pod: Type.Optional(text('Pod of the current attempt.')),
  attempts: Type.Optional(
    Type.Array(attemptSchema, {
      maxItems: ATTEMPTS_KEPT,
      description: `The last ${String(ATTEMPTS_KEPT)} attempts (retries and repeats), oldest first; the run's trace has a span for each.`,
    }),
  ),
  attemptsDropped: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Earlier attempts no longer in `attempts`.' }),
  ),
  outputs: Type.Optional(
    Type.Record(Type.String(), Type.String(), { description: 'Captured output variables up to 16 KiB each.' }),
  ),
  stepOutputs: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description:
        'Declared outputs (Dagu 2.x `outputs:`) of the latest attempt, by name: what `${steps.<id>.outputs.<name>}` reads; 16 KiB together at most.',
    }),
  ),
  outputRefs: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Object({ attempt: Type.Integer({ minimum: 0 }), bytes: Type.Integer({ minimum: 0 }) }),
      {
        description:
          'Captured outputs too large for the status: the value is the trimmed stdout of that attempt in the log store.',
      },
    ),
  ),
  nextAttemptAt: Type.Optional(timestamp('When the next attempt of a retrying or repeating step may start')),
  continued: Type.Optional(Type.Boolean({ description: 'The step failed but continueOn let its dependents run.' })),
  subRuns: Type.Optional(
    Type.Array(
      Type.Object({
        dagRunId: text('Sub run id.'),
        params: Type.Optional(text('JSON-encoded params.')),
        status: Type.Optional(text('The sub run status label, once it ended.')),
      }),
    ),
  ),
  subRunsRepeated: Type.Optional(
    Type.Array(Type.Object({ dagRunId: text('Sub run id.'), params: Type.Optional(text('JSON-encoded params.')) })),
  ),
  ...approvalRecordFields,
});

export const dagRunStatusSchema = Type.Object({
  observedGeneration: Type.Optional(Type.Integer({ description: 'Generation this status describes.' })),
  status: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 8,
      description:
        'Run status: 0 not started, 1 running, 2 failed, 3 canceled, 4 succeeded, 5 queued, 6 partially succeeded, 7 waiting (a step waits for a person and nothing else runs), 8 rejected (a person rejected a step).',
    }),
  ),
  statusLabel: Type.Optional(text('Run status label.')),
  queuedAt: Type.Optional(timestamp('When queued')),
  handedOffAt: Type.Optional(timestamp('When the admission loop let the run out of its queue; cleared when it starts')),
  startedAt: Type.Optional(timestamp('Start')),
  finishedAt: Type.Optional(timestamp('End')),
  params: Type.Optional(text('Effective parameters, JSON-encoded.')),
  progress: Type.Optional(text('Finished steps / all steps, for display.')),
  error: Type.Optional(text('Why the run failed or was canceled.')),
  endReason: Type.Optional(
    Type.Enum(['stopped', 'timeout', 'preconditions', 'init', 'deadlock', 'rejected', 'refused', 'stalled'], {
      description:
        "Why the steps stopped early, if they did. `init`: the init handler failed, so no step started (the run is canceled, as in Dagu 2.x); `refused`: the Kubernetes API refused the run's status for good (a size limit, validation, an admission policy), so the run ended with a smaller one; `stalled`: the run had nothing running or waiting that could move it on.",
    }),
  ),
  retryToken: Type.Optional(text('The kubedag.io/retry annotation value of the last retry carried out.')),
  retriedStep: Type.Optional(
    text('The one step a retry re-runs, if it named one; its retryPolicy does not apply then.'),
  ),
  heldSteps: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "Ready steps the operator's Pod caps (per run, overall) hold back for now.",
    }),
  ),
  prepared: Type.Optional(
    Type.Object(
      {
        env: Type.Array(Type.String()),
        params: Type.Array(Type.String()),
        dotenv: Type.Optional(
          Type.Array(Type.Object({ name: Type.String(), value: Type.String() }), {
            description: 'Variables read from the dotenv files.',
          }),
        ),
        preconditions: Type.Optional(
          Type.Array(Type.Boolean(), {
            description: 'Whether each DAG precondition held, in definition order, as evaluated in the prepare Pod.',
          }),
        ),
      },
      {
        description:
          'DAG env and params evaluated once per run in a Pod (command substitution, dotenv, secrets), in definition order. Secret values are never kept here.',
      },
    ),
  ),
  nodes: Type.Optional(
    Type.Array(nodeSchema, {
      description:
        'Step records not sealed into DAGRunSegments: running and waiting steps, and finished ones until a batch is sealed. A step with no record here or in a segment has not started.',
    }),
  ),
  sealed: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Step segments (DAGRunSegment `<run>-steps-<index>`) sealed so far.' }),
  ),
  waits: Type.Optional(
    Type.Integer({
      minimum: 1,
      description:
        'How many times the run has started waiting for an approval (Dagu 2.x): wait N is when the wait handler and the wait mail are owed.',
    }),
  ),
  onInit: Type.Optional(nodeSchema),
  onWait: Type.Optional(nodeSchema),
  onExit: Type.Optional(nodeSchema),
  onSuccess: Type.Optional(nodeSchema),
  onFailure: Type.Optional(nodeSchema),
  onCancel: Type.Optional(nodeSchema),
  prepare: Type.Optional(nodeSchema),
  telemetry: Type.Optional(
    Type.Object(
      {
        token: Type.String({ description: 'The retry (retryToken) whose trace this records; empty before any retry.' }),
        state: Type.Enum(['exported', 'failed'], { description: 'Whether the collector took the spans.' }),
        message: Type.Optional(text('Why the export failed.')),
        finishedAt: Type.Optional(timestamp('When the export ended')),
      },
      { description: "The run's trace export (otel), done once per execution by a telemetry Pod." },
    ),
  ),
  notifications: Type.Optional(
    Type.Array(
      Type.Object({
        key: text(
          "The mail: `run` for mailOn, `step:<name>` for a step's mailOnError, `wait:<N>` for the waitMail of the run's Nth wait.",
        ),
        token: Type.String({ description: 'The retry (retryToken) this mail belongs to; empty before any retry.' }),
        state: Type.Enum(['sent', 'failed'], { description: 'Whether the SMTP server took the mail.' }),
        message: Type.Optional(text('Why sending failed.')),
        finishedAt: Type.Optional(timestamp('When sending ended')),
      }),
      {
        description:
          'Mails about the run (mailOn), its failed steps (mailOnError) and its waits for an approval (mailOn.wait), each sent once per execution by a mail Pod.',
      },
    ),
  ),
  conditions: Type.Optional(
    Type.Array(conditionSchema, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] }),
  ),
});

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

/**
 * A JSON Schema of the DAG file turned into a Kubernetes structural schema. Structural schemas
 * need one type per field, so a polymorphic field (`anyOf` in the file format, or a `$ref`) is
 * left out of `properties` and its object marked to preserve unknown fields: the value is kept
 * exactly as written for core/dag to validate. `additionalProperties: false` goes (structural
 * schemas forbid it beside properties); `patternProperties` maps become `additionalProperties`.
 */
export function structural(schema: unknown): Record<string, unknown> {
  return structuralNode(schema) ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
}

function structuralNode(schema: unknown): Record<string, unknown> | undefined {
  const node = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  if (node['x-kubernetes-preserve-unknown-fields'] === true) return node;
  if (leftOut(node)) return undefined;
  // A Kubernetes object the DAG JSON Schema stores once (affinity, volume, ...) is described
  // but not typed: a CRD cannot refer to it, and a copy at each use would make the CRD huge.
  // Handlers are steps, typed as before; their Kubernetes parts are such objects themselves.
  const definition = definitionName(node);
  if (definition !== undefined && definition !== 'step')
    return { type: 'object', description: node.description, 'x-kubernetes-preserve-unknown-fields': true };
  const children = ['additionalProperties', 'required', 'patternProperties', 'properties', 'items'];
  const out: Record<string, unknown> = Object.fromEntries(
    Object.entries(node).filter(([key]) => !children.includes(key) && !key.startsWith('x-kubedag-')),
  );
  if (node.items !== undefined) {
    const items = structuralNode(node.items);
    if (items === undefined) return undefined;
    out.items = items;
  }
  Object.assign(out, structuralProperties(node));
  if (node[KEEP_UNKNOWN] === true) out['x-kubernetes-preserve-unknown-fields'] = true;
  if (Array.isArray(node.required) && node.required.length > 0) out.required = node.required;
  // Structural schemas need a type on every node; TypeBox enums carry none.
  if (Array.isArray(node.enum) && out.type === undefined)
    out.type = typeof node.enum[0] === 'number' ? 'integer' : typeof node.enum[0];
  if (out.type === undefined && node.properties !== undefined) out.type = 'object';
  return out;
}

/**
 * Polymorphic nodes, and nodes without a type (Type.Unknown, and the snake_case twins of
 * kubernetes keys, whose marker is no CRD keyword), are left out; the parent keeps such keys
 * as written.
 */
function leftOut(node: Record<string, unknown>): boolean {
  return (
    Array.isArray(node.anyOf) ||
    typeof node.$ref === 'string' ||
    Object.keys(node).every((k) => k === 'description' || k.startsWith('x-kubedag-'))
  );
}

/** `properties` and map values, with the preserve marker where a polymorphic one was left out. */
function structuralProperties(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (node.properties !== undefined) {
    const properties: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(node.properties as object)) {
      const converted = structuralNode(child);
      if (converted === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
      else properties[name] = converted;
    }
    out.properties = properties;
  }
  if (node.patternProperties !== undefined) {
    const values = structuralNode(Object.values(node.patternProperties as object)[0]);
    if (values === undefined) out['x-kubernetes-preserve-unknown-fields'] = true;
    else out.additionalProperties = values;
  }
  return out;
}
