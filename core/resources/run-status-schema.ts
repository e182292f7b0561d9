/**
 * A DAGRun's status as a TypeBox definition: the run's own fields and one node per step, with
 * its attempts and its approval answers. Part of schemas.ts, the one source of the CRDs.
 */
import Type from 'typebox';
import { conditionSchema, stringMap, text, timestamp } from './schema-fields.ts';

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

export const attemptSchema = Type.Object({
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

export const nodeSchema = Type.Object({
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
