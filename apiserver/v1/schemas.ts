/**
 * Dagu 2.x's /api/v1 response shapes (its OpenAPI document, v2.15.1), derived from the /api/v2
 * ones in ../schemas.ts: the 39 operations both versions have answer the same objects with a
 * few fields renamed or added, so only the difference is written here. What v1 adds for
 * features Kubedag does not have (workspaces, profiles, build steps, agent sessions) is left
 * out: those fields are optional in Dagu's document.
 */
import Type, { type TProperties, type TSchema } from 'typebox';
import { PARTS, queryInteger, S } from '../schemas.ts';

const str = Type.String();
const strings = Type.Array(Type.String());
/** Dagu's SearchMatchItem: the matching line with two lines either side, and where they start. */
const SEARCH_MATCH = Type.Object({
  line: Type.String({ description: 'The matching line with up to two lines before and after it.' }),
  lineNumber: Type.Integer({ description: "The matching line's number (1-based)." }),
  startLine: Type.Integer({ description: 'The number of the first line in `line`.' }),
});
/**
 * Dagu's ArtifactTreeNode. Its `children` are nodes again; a recursive schema would need a
 * shared $id in both served documents, so the nesting is described, not checked.
 */
const ARTIFACT_NODE = Type.Object({
  name: str,
  path: str,
  type: Type.Union([Type.Literal('directory'), Type.Literal('file')]),
  size: Type.Optional(Type.Integer({ description: "A file's size in bytes." })),
  children: Type.Optional(
    Type.Array(Type.Unknown(), { description: "A directory's entries (ArtifactTreeNode), with `recursive`." }),
  ),
});

/** The properties of `properties` but `keys`. Pure. */
function without<P extends TProperties, K extends keyof P>(properties: P, keys: readonly K[]): Omit<P, K> {
  const kept: Partial<P> = { ...properties };
  for (const key of keys) Reflect.deleteProperty(kept, key);
  return kept as Omit<P, K>;
}

/** v1 lists a step's commands (`commands`) where v2 has one `command` with `args`; `executor` is `executorConfig`. */
const commandEntry = Type.Object({ command: str, args: Type.Optional(strings) });
const step = Type.Object({
  ...without(PARTS.step.properties, ['command', 'args', 'cmdWithArgs', 'executor', 'run']),
  commands: Type.Array(commandEntry, {
    description: 'The commands the step runs, in order; empty for a script or a sub-DAG call.',
  }),
  executorConfig: Type.Object({ type: str, config: Type.Record(Type.String(), Type.Unknown()) }),
});

/** v1 names a DAG's tags `labels` (keeping `tags` as a deprecated alias). */
const dagSummaryFields = { ...PARTS.dagSummary.properties, labels: strings };
const handlerOn = Type.Object({
  init: Type.Optional(step),
  wait: Type.Optional(step),
  success: Type.Optional(step),
  failure: Type.Optional(step),
  abort: Type.Optional(step),
  exit: Type.Optional(step),
});
const dag = Type.Object({
  ...without(PARTS.dag.properties, ['steps', 'handlerOn']),
  labels: strings,
  steps: Type.Array(step),
  handlerOn,
});
const dagSummary = Type.Object(dagSummaryFields);

/** v1's run summary: no root/parent/log (those are details), and two fields it requires. */
const runSummaryFields = {
  ...without(PARTS.runSummary.properties, [
    'rootDAGRunName',
    'rootDAGRunId',
    'parentDAGRunName',
    'parentDAGRunId',
    'log',
  ]),
  artifactsAvailable: Type.Boolean({
    description: "Always false: a run's status does not record its artifacts; GET .../artifacts lists them.",
  }),
  autoRetryCount: Type.Integer({
    minimum: 0,
    description: "Retries the DAG's retry_policy has made of this run so far (0 without one).",
  }),
  autoRetryLimit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: "The DAG's retry_policy limit this run was started with; absent when the DAG has none.",
    }),
  ),
};
const runSummary = Type.Object(runSummaryFields);
const subRun = Type.Object({ ...PARTS.subRun.properties, dagName: Type.Optional(str) });
const node = Type.Object({
  ...without(PARTS.node.properties, ['step', 'subRuns', 'subRunsRepeated']),
  step,
  subRuns: Type.Array(subRun),
  subRunsRepeated: Type.Array(subRun),
});

/** v1's details: v1's summary and v2's root/parent/log; handler nodes are absent rather than null, and `onCancel` is `onAbort`. */
const runDetails = Type.Object({
  ...runSummaryFields,
  ...PARTS.runSummary.properties,
  nodes: Type.Array(node),
  onInit: Type.Optional(node),
  onExit: Type.Optional(node),
  onSuccess: Type.Optional(node),
  onFailure: Type.Optional(node),
  onAbort: Type.Optional(node),
  onWait: Type.Optional(node),
  preconditions: Type.Array(PARTS.condition),
});

const queue = Type.Object({
  name: str,
  type: Type.Union([Type.Literal('global'), Type.Literal('dag-based')]),
  maxConcurrency: Type.Integer({ minimum: 1 }),
  runningCount: Type.Integer({ minimum: 0 }),
  queuedCount: Type.Integer({ minimum: 0 }),
  running: Type.Array(runSummary),
});

const detailsOf = (schema: TSchema, more: TProperties = {}): TSchema =>
  Type.Object({ ...(schema as unknown as { properties: TProperties }).properties, ...more });

export const V1 = {
  dagRunId: S.dagRunId,
  dagList: Type.Object({
    dags: Type.Array(
      Type.Object({ ...S.dagList.properties.dags.items.properties, dag: dagSummary, latestDAGRun: runSummary }),
    ),
    errors: strings,
    pagination: S.dagList.properties.pagination,
  }),
  dagDetails: Type.Object({
    fileName: Type.String({
      description: "The DAG's file name. Not in Dagu 2.x's document: its CLI reads this answer as a DAGFile.",
    }),
    dag,
    localDags: Type.Array(Type.Object({ name: str, dag, errors: strings })),
    latestDAGRun: runDetails,
    suspended: Type.Boolean(),
    errors: strings,
  }),
  dagSpec: Type.Object({
    dag,
    spec: str,
    errors: strings,
    valueReferenceNotices: Type.Array(Type.Object({ message: str })),
  }),
  validation: detailsOf(S.validation, { dag }),
  searchResults: Type.Object({
    results: Type.Array(
      Type.Object({ name: str, dag: dagSummary, matches: S.searchResults.properties.results.items.properties.matches }),
    ),
    errors: strings,
  }),
  runsPage: Type.Object({
    dagRuns: Type.Array(runSummary),
    nextCursor: Type.Optional(
      Type.String({ description: 'Give it as `cursor` for the next, older page; absent on the last page.' }),
    ),
  }),
  dagRunsWithGrid: Type.Object({ dagRuns: Type.Array(runDetails), gridData: S.dagRunsWithGrid.properties.gridData }),
  dagRunWrapped: Type.Object({ dagRun: runDetails }),
  dagRunDetailsWrapped: Type.Object({ dagRunDetails: runDetails }),
  subRuns: Type.Object({
    subRuns: Type.Array(Type.Object({ ...S.subRuns.properties.subRuns.items.properties, dagName: Type.Optional(str) })),
  }),
  queue,
  queues: Type.Object({ queues: Type.Array(queue), summary: S.queues.properties.summary }),
  queueItems: Type.Object({ items: Type.Array(runSummary), nextCursor: Type.Optional(str) }),
  labels: Type.Object({ labels: strings, errors: strings }),
  runSpec: Type.Object({ spec: str }),
  outputs: Type.Object({
    metadata: Type.Object({
      dagName: str,
      dagRunId: str,
      attemptId: str,
      status: str,
      completedAt: str,
      params: Type.Optional(str),
    }),
    outputs: Type.Record(Type.String(), Type.String()),
  }),
  artifacts: Type.Object({
    items: Type.Array(ARTIFACT_NODE, {
      description:
        "The files the run's steps left in DAG_RUN_ARTIFACTS_DIR, directories first (none without artifacts).",
    }),
  }),
  artifactPreview: Type.Object({
    name: str,
    path: str,
    kind: Type.Union([
      Type.Literal('markdown'),
      Type.Literal('html'),
      Type.Literal('text'),
      Type.Literal('image'),
      Type.Literal('binary'),
    ]),
    mimeType: str,
    size: Type.Integer(),
    tooLarge: Type.Boolean({ description: 'Over the preview limit (2 MiB of text, 5 MiB for an image).' }),
    truncated: Type.Boolean(),
    content: Type.Optional(Type.String({ description: 'The text of a markdown, HTML or text file.' })),
  }),
  searchFeed: Type.Object({
    results: Type.Array(
      Type.Object({
        fileName: str,
        name: Type.String({ description: 'The file name, as in Dagu.' }),
        hasMoreMatches: Type.Boolean(),
        nextMatchesCursor: Type.Optional(str),
        matches: Type.Array(SEARCH_MATCH),
      }),
    ),
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(str),
  }),
  searchMatches: Type.Object({
    matches: Type.Array(SEARCH_MATCH),
    hasMore: Type.Boolean(),
    nextCursor: Type.Optional(str),
  }),
  workers: Type.Object({
    workers: Type.Array(
      Type.Object(without(PARTS.worker.properties, ['health_status', 'last_heartbeat', 'running_tasks'])),
    ),
    errors: strings,
  }),
};

/** v1's paging of run lists: `limit` (1..500, 100 by default) and an opaque `cursor` from the previous page. */
export const PAGE_QUERY = {
  limit: Type.Optional(
    queryInteger({ minimum: 1, maximum: 500, description: 'At most this many runs (100 by default).' }),
  ),
  cursor: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9_-]*$',
      description: "The previous page's `nextCursor` (opaque); one this server did not answer is a 400.",
    }),
  ),
};
