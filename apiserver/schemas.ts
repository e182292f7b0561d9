/**
 * The contract's response shapes, written once: fastify validates nothing with them but
 * serialises through them (fast and never leaking a field we did not mean to send), and
 * @fastify/swagger turns them into the OpenAPI document at /api/v2/openapi.json.
 * Nested parts whose shape is the DAG format's own (continueOn, retryPolicy, executor config,
 * parallel items) are `Unknown` here: they are documented in dag-format.md, and a second
 * copy of that schema would drift.
 */
import Type, { type TInteger, type TObject, type TProperties, type TSchema } from 'typebox';
import { DAG_NAME_PATTERN, MAX_DAG_NAME_LENGTH } from '../core/dag/validate.ts';
import { MAX_RUN_ID_LENGTH, RUN_ID_PATTERN } from '../core/resources/ids.ts';
import { FILE_NAME_PATTERN } from '../core/resources/names.ts';
import { approvalConfig, approvalNodeFields } from './schemas-approval.ts';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './views/dags.ts';

/**
 * The fixed paths under /dags/ (the contract: they win over {fileName}): no DAG file can be
 * called so, since GET /dags/{fileName} could never show it.
 */
export const RESERVED_FILE_NAMES = ['search', 'tags', 'validate'] as const;

/** A pattern's text with the reserved file names refused first (a lookahead both ajv and Python read). */
const fileNamePattern = `^(?!(${RESERVED_FILE_NAMES.join('|')})$)${FILE_NAME_PATTERN.source.slice(1)}`;

function dagName(more = ''): ReturnType<typeof Type.String> {
  return Type.String({
    pattern: DAG_NAME_PATTERN.source,
    maxLength: MAX_DAG_NAME_LENGTH,
    description: `A DAG name: letters, digits, "_", "." and "-", at most ${String(MAX_DAG_NAME_LENGTH)} characters.${more}`,
  });
}

/** The contract's name rules, from the checks' own constants, so that the document says what is refused. */
export const NAMES = {
  fileName: Type.String({ pattern: fileNamePattern, description: 'A DAG file name: letters, digits, "_" and "-".' }),
  /** A new DAG's file name (POST /dags, rename): it is the DAG's name too, so at most 40 characters. */
  newFileName: Type.String({
    pattern: fileNamePattern,
    maxLength: MAX_DAG_NAME_LENGTH,
    description: `A new DAG file name: letters, digits, "_" and "-", at most ${String(MAX_DAG_NAME_LENGTH)} characters; not ${RESERVED_FILE_NAMES.join(', ')}.`,
  }),
  dagName: dagName(),
  /** An inline run's name: the document can say when it is needed, not check it (that depends on the spec's YAML). */
  inlineDagName: dagName(
    ' Needed unless the spec has a `name`; with neither, the run is refused with 400 bad_request.',
  ),
  dagRunId: Type.String({
    pattern: RUN_ID_PATTERN.source,
    maxLength: MAX_RUN_ID_LENGTH,
    description: `A run id: letters, digits, "_" and "-", at most ${String(MAX_RUN_ID_LENGTH)} characters.`,
  }),
};

/**
 * A request body. Its fields are checked (a wrong type or value is a 400), but a field it does
 * not define is accepted and dropped before the route sees it (app.ts), as Dagu does: its own
 * web UI sends fields that some versions do not know (`singleton` on reschedule). The document
 * says so, so that a client reading it expects exactly that.
 */
export function requestBody<T extends TProperties>(properties: T, example?: Record<string, unknown>): TObject<T> {
  // The example is a request that works: the document's, and schemathesis's first case.
  return Type.Object(properties, {
    additionalProperties: true,
    description: 'Fields this schema does not define are ignored.',
    ...(example === undefined ? {} : { examples: [example] }),
  });
}

/**
 * An integer in a query string, at most the bounds given and never beyond the safe-integer
 * range: past 2^53 the text parses to a nearby other number, so the server would answer about a
 * value that was not sent (`page=48893797887484479536868199835369472` came back as
 * `"currentPage": 4.889379788748448e+34`). Out of range is a 400, and the document says the range.
 */
export function queryInteger(bounds: { minimum?: number; maximum?: number; description?: string } = {}): TInteger {
  return Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, ...bounds });
}

const str = Type.String();
const int = Type.Integer();
const strings = Type.Array(Type.String());
const nullable = (schema: TSchema): TSchema => Type.Union([schema, Type.Null()]);
const labels = Type.Record(Type.String(), Type.String());

const condition = Type.Object({ condition: str, expected: str, error: str });

/**
 * The contract's `remoteNode` query parameter. Every /api/v2 route takes it (remote.ts relays
 * the request before the route's own schema runs, and documents it on every operation); the
 * routes that read their query name it too, so that their handlers leave it out. No `default`:
 * the validator would write it into every query, and the description says what absent means.
 */
export const remoteNodeQuery = Type.Optional(
  Type.String({
    description:
      'The node that answers: `local` (this server; also when absent or empty) or the name of a remote node configured on this server (KUBEDAG_REMOTE_NODES), to which the request is relayed unchanged and whose answer is returned. An unknown name is a 400 bad_request; an unreachable node a 502 remote_node_error.',
  }),
);

const step = Type.Object({
  name: str,
  id: Type.Optional(str),
  description: Type.Optional(str),
  dir: Type.Optional(str),
  command: Type.Optional(str),
  args: strings,
  cmdWithArgs: Type.Optional(str),
  script: Type.Optional(str),
  shell: Type.Optional(str),
  stdout: Type.Optional(str),
  stderr: Type.Optional(str),
  output: Type.Optional(str),
  depends: strings,
  preconditions: Type.Array(condition),
  continueOn: Type.Unknown(),
  retryPolicy: Type.Optional(Type.Unknown()),
  repeatPolicy: Type.Optional(Type.Unknown()),
  mailOnError: Type.Boolean(),
  call: Type.Optional(str),
  run: Type.Optional(str),
  params: Type.Optional(str),
  parallel: Type.Optional(Type.Unknown()),
  executor: Type.Object({ type: str, config: Type.Unknown() }),
  signalOnStop: str,
  timeoutSec: Type.Number(),
  workerSelector: labels,
  env: strings,
  approval: Type.Optional(approvalConfig),
});

const summaryFields = {
  name: str,
  group: str,
  schedule: Type.Array(Type.Object({ expression: str })),
  description: str,
  params: strings,
  defaultParams: str,
  tags: strings,
  queue: str,
  maxActiveRuns: int,
  runConfig: Type.Object({ disableParamEdit: Type.Boolean(), disableRunIdEdit: Type.Boolean() }),
};
const dagSummary = Type.Object(summaryFields);

const dag = Type.Object({
  ...summaryFields,
  type: str,
  env: strings,
  logDir: str,
  handlerOn: Type.Object({
    init: Type.Optional(step),
    wait: Type.Optional(step),
    success: Type.Optional(step),
    failure: Type.Optional(step),
    cancel: Type.Optional(step),
    exit: Type.Optional(step),
  }),
  steps: Type.Array(step),
  delay: Type.Number(),
  timeoutSec: Type.Number(),
  histRetentionDays: Type.Number(),
  maxActiveSteps: Type.Number(),
  maxCleanUpTimeSec: Type.Number(),
  preconditions: Type.Array(condition),
  workerSelector: labels,
});

const runSummaryFields = {
  rootDAGRunName: str,
  rootDAGRunId: str,
  parentDAGRunName: str,
  parentDAGRunId: str,
  dagRunId: str,
  name: str,
  status: int,
  statusLabel: str,
  queuedAt: str,
  startedAt: str,
  finishedAt: str,
  log: str,
  params: str,
};
const runSummary = Type.Object(runSummaryFields);

const subRun = Type.Object({
  dagRunId: str,
  params: Type.Optional(str),
  status: Type.Optional(int),
  statusLabel: Type.Optional(str),
});
/** One attempt of a step (a retry or a repeat): Kubedag's addition, for the UI's timeline. */
const attempt = Type.Object({
  attempt: int,
  startedAt: str,
  finishedAt: str,
  status: int,
  statusLabel: str,
  exitCode: Type.Optional(int),
});
const node = Type.Object({
  step,
  stdout: str,
  stderr: str,
  startedAt: str,
  finishedAt: str,
  status: int,
  statusLabel: str,
  retryCount: int,
  doneCount: int,
  subRuns: Type.Array(subRun),
  subRunsRepeated: Type.Array(subRun),
  error: str,
  // Kubedag's additions (optional, so the contract's clients see its node unchanged): what
  // the web UI's steps table and timeline show and the contract's node does not carry.
  exitCode: Type.Optional(Type.Integer({ description: 'Exit code of the last attempt, when it reported one.' })),
  outputs: Type.Optional(
    Type.Record(Type.String(), Type.String(), {
      description: 'Output variables the step captured (values over 16 KiB are not included).',
    }),
  ),
  attempts: Type.Optional(
    Type.Array(attempt, { description: 'The last attempts (retries and repeats), oldest first.' }),
  ),
  attemptsDropped: Type.Optional(Type.Integer({ description: 'Earlier attempts no longer listed in `attempts`.' })),
  ...approvalNodeFields,
});

const runDetails = Type.Object({
  ...runSummaryFields,
  nodes: Type.Array(node),
  onInit: Type.Optional(nullable(node)),
  onWait: Type.Optional(nullable(node)),
  onExit: nullable(node),
  onSuccess: nullable(node),
  onFailure: nullable(node),
  onCancel: nullable(node),
  preconditions: Type.Array(condition),
});

const pagination = Type.Object({
  totalRecords: int,
  currentPage: int,
  totalPages: int,
  nextPage: nullable(int),
  prevPage: nullable(int),
});

const listItem = Type.Object({
  fileName: str,
  dag: dagSummary,
  latestDAGRun: runSummary,
  suspended: Type.Boolean(),
  errors: strings,
});

const reducedRun = Type.Object({
  dagRunId: str,
  name: str,
  status: int,
  statusLabel: str,
  startedAt: str,
  finishedAt: str,
  log: str,
});

const task = Type.Object({
  dagName: str,
  dagRunId: str,
  rootDagRunName: str,
  rootDagRunId: str,
  parentDagRunName: str,
  parentDagRunId: str,
  startedAt: str,
});
const worker = Type.Object({
  id: str,
  labels,
  health_status: str,
  last_heartbeat: str,
  running_tasks: Type.Array(task),
  healthStatus: str,
  lastHeartbeatAt: str,
  runningTasks: Type.Array(task),
  totalPollers: int,
  busyPollers: int,
});

/**
 * The contract's parts, for the schemas of /api/v1 (v1/schemas.ts): Dagu 2.x's shapes are these
 * with fields renamed or added, so they are derived from here rather than written twice.
 */
export const PARTS = { step, dagSummary, dag, runSummary, node, runDetails, subRun, condition, worker };

export const S = {
  dagListQuery: Type.Object({
    page: Type.Optional(queryInteger({ description: '1-based; below 1 means 1.' })),
    perPage: Type.Optional(
      queryInteger({
        description: `At most ${String(MAX_PER_PAGE)} (more is taken as ${String(MAX_PER_PAGE)}); 0 or less means ${String(DEFAULT_PER_PAGE)}.`,
      }),
    ),
    name: Type.Optional(str),
    tag: Type.Optional(str),
    sort: Type.Optional(str),
    order: Type.Optional(str),
    remoteNode: remoteNodeQuery,
  }),
  dagList: Type.Object({ dags: Type.Array(listItem), errors: strings, pagination }),
  dagDetails: Type.Object({
    dag,
    localDags: Type.Array(Type.Object({ name: str, dag, errors: strings })),
    latestDAGRun: Type.Object(runDetails.properties, {
      description:
        "The latest run's details, as GET /dag-runs/{name}/{dagRunId} answers them; for a DAG that never ran, status 0 with empty ids and times, and a node per step (and per handler) the DAG defines, all not started.",
    }),
    suspended: Type.Boolean(),
    errors: strings,
  }),
  dagSpec: Type.Object({ dag, spec: str, errors: strings }),
  errorsOnly: Type.Object({ errors: strings }),
  validation: Type.Object({ valid: Type.Boolean(), errors: strings, dag }),
  searchResults: Type.Object({
    results: Type.Array(
      Type.Object({
        name: str,
        dag: dagSummary,
        matches: Type.Array(Type.Object({ line: str, lineNumber: int, startLine: int })),
      }),
    ),
    errors: strings,
  }),
  dagRunId: Type.Object({ dagRunId: str }),
  runSummaries: Type.Object({ dagRuns: Type.Array(runSummary) }),
  dagRunsWithGrid: Type.Object({
    dagRuns: Type.Array(runDetails),
    gridData: Type.Array(Type.Object({ name: str, history: Type.Array(int) })),
  }),
  dagRunWrapped: Type.Object({ dagRun: runDetails }),
  dagRunDetailsWrapped: Type.Object({ dagRunDetails: runDetails }),
  subRuns: Type.Object({
    subRuns: Type.Array(
      Type.Object({ dagRunId: str, params: str, status: int, statusLabel: str, startedAt: str, finishedAt: str }),
    ),
  }),
  logChunk: Type.Object({
    content: str,
    lineCount: int,
    totalLines: int,
    hasMore: Type.Boolean(),
    isEstimate: Type.Boolean(),
  }),
  queues: Type.Object({
    queues: Type.Array(
      Type.Object({
        name: str,
        type: Type.Union([Type.Literal('custom'), Type.Literal('dag-based')]),
        maxConcurrency: Type.Optional(int),
        summary: Type.Object({ running: int, queued: int, total: int }),
        runningDAGRuns: Type.Array(reducedRun),
        queuedDAGRuns: Type.Array(reducedRun),
        running: Type.Array(runSummary, {
          description: 'The running runs as full run summaries, oldest start first (Dagu 1.24 reads these).',
        }),
        queued: Type.Array(runSummary, {
          description: 'The queued runs as full run summaries, next first (Dagu 1.24 reads these).',
        }),
      }),
    ),
    summary: Type.Object(
      {
        totalQueues: int,
        totalRunning: int,
        totalQueued: int,
        totalCapacity: Type.Integer({ description: 'The sum of the listed maxConcurrency values (custom queues).' }),
        utilizationPercentage: Type.Number({
          minimum: 0,
          maximum: 100,
          description: 'Running runs of the queues with a capacity, as a share of totalCapacity; 0 without any.',
        }),
      },
      { description: 'Totals over the listed queues, as Dagu 1.24 answers them.' },
    ),
  }),
  workers: Type.Object({ workers: Type.Array(worker), errors: strings }),
  /**
   * Successes without a body: `type: 'null'` is how @fastify/swagger documents a response with
   * no content. Plain objects rather than TypeBox's Null, so that handlers send nothing at all
   * (not the text `null`).
   */
  empty: { type: 'null', description: 'Done; no body.' },
  noContent: { type: 'null', description: 'Deleted; no body.' },
  error: Type.Object({ code: str, message: str, details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
  health: Type.Object({ status: str, version: str, uptime: int, timestamp: str, error: Type.Optional(str) }),
};
