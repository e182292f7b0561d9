/**
 * The OpenAPI links of the document: which answer (or request) gives the values another
 * operation needs, so that a client, and schemathesis's stateful phase, can go from a list to
 * an item, from a new DAG to its runs, from a run to its steps' logs. One table, added to the
 * document as it is rendered; links.test.ts checks that every link names operations and
 * parameters the document has.
 */

export interface Link {
  /** `METHOD /path status`: the answer the link belongs to, path as in the document (with the /api/v2 prefix). */
  readonly from: string;
  /** `METHOD /path` of the operation the link leads to. */
  readonly to: string;
  /** The target's parameters, each a runtime expression ($response.body#/..., $request.path.x, ...). */
  readonly parameters: Readonly<Record<string, string>>;
  readonly description: string;
}

const P = '/api/v2';
const RUN = `${P}/dag-runs/{name}/{dagRunId}`;

/** A run's own operations, reached from an answer whose JSON pointer `at` holds the run's details. */
function runLinks(from: string, at: string): Link[] {
  const run = { name: `$response.body#${at}/name`, dagRunId: `$response.body#${at}/dagRunId` };
  const step = { ...run, stepName: `$response.body#${at}/nodes/0/step/name` };
  return [
    { from, to: `GET ${RUN}`, parameters: run, description: 'The run, by its DAG name and id.' },
    { from, to: `GET ${RUN}/log`, parameters: run, description: "The run's log." },
    { from, to: `POST ${RUN}/stop`, parameters: run, description: 'Stop the run.' },
    { from, to: `POST ${RUN}/retry`, parameters: run, description: 'Retry the run.' },
    { from, to: `POST ${RUN}/reschedule`, parameters: run, description: "A new run from the run's definition." },
    { from, to: `GET ${RUN}/dequeue`, parameters: run, description: 'Take the run out of its queue.' },
    { from, to: `GET ${RUN}/sub-dag-runs`, parameters: run, description: "The run's sub runs." },
    { from, to: `GET ${RUN}/steps/{stepName}/log`, parameters: step, description: "The first step's log." },
    { from, to: `PATCH ${RUN}/steps/{stepName}/status`, parameters: step, description: "Set the first step's status." },
  ];
}

/** A DAG's operations, reached with the file name the expression gives. */
function dagLinks(from: string, fileName: string): Link[] {
  const parameters = { fileName };
  return [
    { from, to: `GET ${P}/dags/{fileName}`, parameters, description: 'The DAG.' },
    { from, to: `GET ${P}/dags/{fileName}/spec`, parameters, description: "The DAG's spec." },
    { from, to: `PUT ${P}/dags/{fileName}/spec`, parameters, description: "Replace the DAG's spec." },
    { from, to: `POST ${P}/dags/{fileName}/start`, parameters, description: 'Start a run of the DAG.' },
    { from, to: `POST ${P}/dags/{fileName}/enqueue`, parameters, description: 'Queue a run of the DAG.' },
    { from, to: `POST ${P}/dags/{fileName}/suspend`, parameters, description: "Suspend or resume the DAG's schedule." },
    { from, to: `POST ${P}/dags/{fileName}/stop-all`, parameters, description: "Stop the DAG's running runs." },
    { from, to: `GET ${P}/dags/{fileName}/dag-runs`, parameters, description: "The DAG's recent runs." },
    { from, to: `POST ${P}/dags/{fileName}/rename`, parameters, description: 'Rename the DAG.' },
    { from, to: `DELETE ${P}/dags/{fileName}`, parameters, description: 'Delete the DAG.' },
  ];
}

/** A run started from a DAG file, reached by the file name and the id the start answered. */
function startedLinks(from: string): Link[] {
  return [
    {
      from,
      to: `GET ${P}/dags/{fileName}/dag-runs/{dagRunId}`,
      parameters: { fileName: '$request.path.fileName', dagRunId: '$response.body#/dagRunId' },
      description: 'The run just started or queued.',
    },
  ];
}

export const LINKS: readonly Link[] = [
  ...dagLinks(`POST ${P}/dags 201`, '$response.body#/name'),
  ...dagLinks(`GET ${P}/dags 200`, '$response.body#/dags/0/fileName'),
  ...dagLinks(`POST ${P}/dags/{fileName}/rename 200`, '$request.body#/newFileName'),
  {
    from: `DELETE ${P}/dags/{fileName} 204`,
    to: `GET ${P}/dags/{fileName}`,
    parameters: { fileName: '$request.path.fileName' },
    description: 'The deleted DAG: 404 from now on.',
  },
  ...startedLinks(`POST ${P}/dags/{fileName}/start 200`),
  ...startedLinks(`POST ${P}/dags/{fileName}/enqueue 200`),
  ...runLinks(`GET ${P}/dags/{fileName}/dag-runs/{dagRunId} 200`, '/dagRun'),
  ...runLinks(`GET ${P}/dags/{fileName}/dag-runs 200`, '/dagRuns/0'),
  ...runLinks(`GET ${P}/dag-runs 200`, '/dagRuns/0'),
  ...runLinks(`GET ${P}/dag-runs/{name} 200`, '/dagRuns/0'),
  ...runLinks(`GET ${RUN} 200`, '/dagRunDetails'),
  {
    from: `POST ${P}/dag-runs 200`,
    to: `GET ${RUN}`,
    parameters: { name: '$request.body#/name', dagRunId: '$response.body#/dagRunId' },
    description: 'The inline run just started, when the request named it.',
  },
  {
    from: `POST ${P}/dag-runs/enqueue 200`,
    to: `GET ${RUN}`,
    parameters: { name: '$request.body#/name', dagRunId: '$response.body#/dagRunId' },
    description: 'The inline run just queued, when the request named it.',
  },
  {
    from: `POST ${RUN}/reschedule 200`,
    to: `GET ${RUN}`,
    parameters: { name: '$request.path.name', dagRunId: '$response.body#/dagRunId' },
    description: 'The new run.',
  },
  {
    from: `GET ${RUN}/sub-dag-runs 200`,
    to: `GET ${RUN}/sub-dag-runs/{subDAGRunId}`,
    parameters: {
      name: '$request.path.name',
      dagRunId: '$request.path.dagRunId',
      subDAGRunId: '$response.body#/subRuns/0/dagRunId',
    },
    description: 'The first sub run.',
  },
];

const V1 = '/api/v1';
const V1_RUN = `${V1}/dag-runs/{name}/{dagRunId}`;

/** A sub-run's own operations under /api/v1, reached from its run's list of sub-runs. */
const V1_SUB_RUN_LINKS: readonly Link[] = [
  ['spec', "The first sub run's stored definition."],
  ['log', "The first sub run's log."],
  ['artifacts', "The first sub run's artifacts."],
].map(([part = '', description = '']) => ({
  from: `GET ${V1_RUN}/sub-dag-runs 200`,
  to: `GET ${V1_RUN}/sub-dag-runs/{subDAGRunId}/${part}`,
  parameters: {
    name: '$request.path.name',
    dagRunId: '$request.path.dagRunId',
    subDAGRunId: '$response.body#/subRuns/0/dagRunId',
  },
  description,
}));

/**
 * The same links between /api/v1's operations: they are the same handlers at the same relative
 * paths, and v1's answers keep every field the links read (v1/views.ts). Beside them, v1's own:
 * a run's outputs, spec, artifacts and deletion, and a sub-run's spec, log and artifacts.
 */
export const V1_LINKS: readonly Link[] = [
  ...LINKS.map((link) => ({ ...link, from: link.from.replace(P, V1), to: link.to.replace(P, V1) })),
  ...[
    ['GET', `${V1_RUN}/outputs`, "The run's outputs."],
    ['GET', `${V1_RUN}/spec`, "The run's stored definition."],
    ['GET', `${V1_RUN}/artifacts`, "The files the run's steps left (an empty list when none)."],
    ['DELETE', V1_RUN, 'Delete the run (once it has ended).'],
  ].map(([method = '', to = '', description = '']) => ({
    from: `GET ${V1_RUN} 200`,
    to: `${method} ${to}`,
    parameters: { name: '$response.body#/dagRunDetails/name', dagRunId: '$response.body#/dagRunDetails/dagRunId' },
    description,
  })),
  ...V1_SUB_RUN_LINKS,
];

/** Link names are unique per response: the target's method and path, made readable. */
export function linkName(link: Link): string {
  const [method = '', path = ''] = link.to.split(' ');
  const words = path
    .slice(P.length)
    .split('/')
    .filter((w) => w !== '')
    .map((w) => w.replace(/[{}]/g, '').replace(/-(\w)/g, (_m, c: string) => c.toUpperCase()));
  return [method.toLowerCase(), ...words.map((w) => w.charAt(0).toUpperCase() + w.slice(1))].join('');
}

/** `#/paths/~1api~1v2~1dags/get`: a JSON pointer to an operation of the document. */
export function operationRef(to: string): string {
  const [method = '', path = ''] = to.split(' ');
  return `#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}`;
}

type Paths = Record<
  string,
  Record<string, { responses?: Record<string, { links?: Record<string, unknown> }> } | undefined> | undefined
>;

/** The document with the links added to the answers they belong to (a copy where it changes). */
export function withLinks<D extends object>(document: D, links: readonly Link[] = LINKS): D {
  // Typed loosely: @fastify/swagger's document types differ between OpenAPI versions.
  const paths = structuredClone((document as { paths?: Paths }).paths ?? {});
  for (const link of links) {
    const [method = '', path = '', status = ''] = link.from.split(' ');
    const response = paths[path]?.[method.toLowerCase()]?.responses?.[status];
    if (response === undefined) continue;
    response.links = {
      ...response.links,
      [linkName(link)]: {
        operationRef: operationRef(link.to),
        parameters: link.parameters,
        description: link.description,
      },
    };
  }
  return { ...document, paths };
}
