/** DAG definitions: list, create, details, delete, spec, validate, rename, search, tags. */
import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import Type from 'typebox';
import { dagDetails, dagSummary } from '../../core/dag/api.ts';
import { dagNameProblem, formatIssue, loadDag } from '../../core/dag/index.ts';
import { isAlreadyExists, isConflict } from '../../core/kube/errors.ts';
import { allDags, checkFileName, dagOf, latestRun, resolverFor, runDefinition, type Cluster } from '../cluster.ts';
import type { ResourceRouteOptions } from '../deps.ts';
import { ApiError, rethrowAs } from '../errors.ts';
import { refuseAbovePolicy } from '../pod-policy.ts';
import { NAMES, remoteNodeQuery, requestBody, S } from '../schemas.ts';
import { isActiveRun } from '../../core/resources/queue.ts';
import type { Requester } from '../../core/resources/requested-by.ts';
import { dagDetailsView, dagListItem, paginate, searchText, selectDags, uniqueTags } from '../views/dags.ts';
import { compareText } from '../views/format.ts';
import { runIdentity } from '../views/identity.ts';
import { runDetails } from '../views/runs.ts';
import { latestFromStatus } from '../views/archived.ts';
import { latestRoot, withRecords } from '../archive-reads.ts';

/** What POST /dags stores when the body has no spec (behaviour-notes 10). */
export const DEFAULT_DAG_YAML = 'steps:\n  - command: echo hello\n';

const fileParams = Type.Object({ fileName: NAMES.fileName });
// Each body's example is a request that works (the document's examples, and schemathesis's first cases).
const createBody = requestBody(
  { name: NAMES.newFileName, spec: Type.Optional(Type.String()) },
  { name: 'hello', spec: DEFAULT_DAG_YAML },
);
const specBody = requestBody({ spec: Type.String() }, { spec: DEFAULT_DAG_YAML });
const validateBody = requestBody(
  { spec: Type.String(), name: Type.Optional(Type.String()) },
  { spec: DEFAULT_DAG_YAML, name: 'hello' },
);
const renameBody = requestBody({ newFileName: NAMES.newFileName }, { newFileName: 'hello-renamed' });
const searchQuery = Type.Object({ q: Type.String({ minLength: 1 }), remoteNode: remoteNodeQuery });
const tagList = Type.Object({ tags: Type.Array(Type.String()), errors: Type.Array(Type.String()) });

function checkNewName(name: string): void {
  checkFileName(name);
  const problem = dagNameProblem(name);
  if (problem !== undefined) throw new ApiError('bad_request', `invalid name: ${problem}`);
}

/** A create whose name is taken (the Kubernetes API says so: AlreadyExists) is the contract's 409. */
const taken = (fileName: string): ((error: unknown) => never) =>
  rethrowAs(isAlreadyExists, () => new ApiError('already_exists', `DAG "${fileName}" already exists`));

/** The app as a route plugin of this file sees it: TypeBox schemas type each route. */
type DagsApp = Parameters<FastifyPluginCallbackTypebox<ResourceRouteOptions>>[0];

const read = { permission: 'read' as const };

// Registered in the OpenAPI document's order.
export const dagRoutes: FastifyPluginCallbackTypebox<ResourceRouteOptions> = (app, { cluster, clock }, done) => {
  definitionRoutes(app, cluster, clock);
  specRoutes(app, cluster);
  findRoutes(app, cluster);
  done();
};

/** The DAG resources themselves: list, create, details, delete. */
function definitionRoutes(app: DagsApp, cluster: Cluster, clock: ResourceRouteOptions['clock']): void {
  app.get(
    '/dags',
    { config: read, schema: { tags: ['dags'], querystring: S.dagListQuery, response: { 200: S.dagList } } },
    (request) => {
      const { query } = request;
      const chosen = selectDags(allDags(cluster), query, clock());
      const { items, pagination } = paginate(chosen, query.page, query.perPage);
      // With a history store, a DAG whose runs are all archived shows the latest run the operator keeps in its status: no query per DAG.
      const archived = cluster.history !== undefined;
      return {
        dags: items.map((e) =>
          dagListItem(
            e,
            latestRun(cluster, e.load.dag.name) ??
              (archived ? latestFromStatus(e.resource, e.load.dag.name) : undefined),
          ),
        ),
        errors: [],
        pagination,
      };
    },
  );

  app.post(
    '/dags',
    {
      config: { permission: 'write', errors: ['bad_request', 'already_exists'] },
      schema: {
        tags: ['dags'],
        body: createBody,
        response: { 201: Type.Object({ name: Type.String() }, { description: 'The DAG is created.' }) },
      },
    },
    async (request, reply) => {
      const { name, spec } = request.body;
      checkNewName(name);
      const yaml = spec ?? DEFAULT_DAG_YAML;
      const load = loadDag(yaml, { fileName: name });
      if (load.errors.length > 0)
        throw new ApiError('bad_request', `invalid spec: ${load.errors.map(formatIssue).join('; ')}`);
      await refuseAbovePolicy(cluster.policy, load.dag);
      // Whether the name is taken is the Kubernetes API's to say, not the cache's: a cache that
      // has not yet seen a deletion would refuse a name that was just freed.
      await cluster.writer.createDag(name, yaml, load.documents, request.caller).catch(taken(name));
      return reply.code(201).send({ name });
    },
  );

  app.get(
    '/dags/:fileName',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['dags'], params: fileParams, response: { 200: S.dagDetails } },
    },
    async (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      const found = await latestRoot(cluster, (name) => latestRun(cluster, name), entry.load.dag.name);
      const latest = found === undefined ? undefined : await withRecords(cluster, found);
      return dagDetailsView(
        entry,
        latest === undefined
          ? undefined
          : runDetails(latest, await runDefinition(cluster, latest), await resolverFor(cluster, latest)),
      );
    },
  );

  app.delete(
    '/dags/:fileName',
    {
      config: { permission: 'delete', errors: ['not_found'] },
      schema: { tags: ['dags'], params: fileParams, response: { 204: S.noContent } },
    },
    async (request, reply) => {
      const entry = dagOf(cluster, request.params.fileName);
      await cluster.writer.deleteDag(entry.resource.metadata?.name ?? '');
      return reply.code(204).send();
    },
  );
}

/** A DAG's YAML: read it, replace it, and check one before it is stored. */
function specRoutes(app: DagsApp, cluster: Cluster): void {
  app.get(
    '/dags/:fileName/spec',
    {
      config: { ...read, errors: ['not_found'] },
      schema: { tags: ['dags'], params: fileParams, response: { 200: S.dagSpec } },
    },
    (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      return {
        dag: dagDetails(entry.load.dag),
        spec: entry.yaml,
        errors: [...entry.errors, ...entry.load.warnings.map(formatIssue)],
      };
    },
  );

  app.put(
    '/dags/:fileName/spec',
    {
      config: { permission: 'write', errors: ['not_found', 'already_exists'] },
      schema: { tags: ['dags'], params: fileParams, body: specBody, response: { 200: S.errorsOnly } },
    },
    async (request) => {
      const entry = dagOf(cluster, request.params.fileName);
      const { spec } = request.body;
      const load = loadDag(spec, { fileName: entry.fileName });
      if (load.errors.length > 0) return { errors: load.errors.map(formatIssue) };
      const above = (await cluster.policy?.problems(load.dag)) ?? [];
      if (above.length > 0) return { errors: above };
      await cluster.writer.replaceDagSpec(entry.resource, spec, load.documents, request.caller).catch(
        rethrowAs(
          isConflict,
          () =>
            new ApiError('already_exists', `DAG "${entry.fileName}" was changed meanwhile; read it again`, {
              status: 409,
            }),
        ),
      );
      return { errors: [] };
    },
  );

  app.post(
    '/dags/validate',
    {
      config: { ...read, audit: false },
      schema: { tags: ['dags'], body: validateBody, response: { 200: S.validation } },
    },
    async (request) => {
      const { spec, name } = request.body;
      const load = loadDag(spec, name === undefined ? {} : { fileName: name });
      // As the operator will find it in this namespace: a DAG above its pod policy cannot run.
      const errors =
        load.errors.length > 0 ? load.errors.map(formatIssue) : ((await cluster.policy?.problems(load.dag)) ?? []);
      return { valid: errors.length === 0, errors, dag: dagDetails(load.dag) };
    },
  );
}

/** Renaming, and finding DAGs by their text and tags. */
function findRoutes(app: DagsApp, cluster: Cluster): void {
  app.post(
    '/dags/:fileName/rename',
    {
      config: { permission: 'write', errors: ['not_found', 'already_exists', 'not_running'] },
      schema: { tags: ['dags'], params: fileParams, body: renameBody, response: { 200: S.empty } },
    },
    async (request, reply) => {
      const { newFileName } = request.body;
      const entry = dagOf(cluster, request.params.fileName);
      checkNewName(newFileName);
      await renameDag(cluster, entry.fileName, newFileName, request.caller);
      return reply.code(200).send();
    },
  );

  app.get(
    '/dags/search',
    {
      config: { ...read, errors: ['bad_request'] },
      schema: { tags: ['dags'], querystring: searchQuery, response: { 200: S.searchResults } },
    },
    (request) => {
      const { q } = request.query;
      let pattern: RegExp;
      try {
        pattern = new RegExp(q, 'i');
      } catch (error) {
        throw new ApiError('bad_request', `invalid search pattern: ${(error as Error).message}`);
      }
      const results = allDags(cluster)
        .sort((a, b) => compareText(a.fileName, b.fileName))
        .flatMap((e) => {
          const matches = searchText(e.yaml, pattern);
          return matches.length === 0 ? [] : [{ name: e.fileName, dag: dagSummary(e.load.dag), matches }];
        });
      return { results, errors: [] };
    },
  );

  app.get('/dags/tags', { config: read, schema: { tags: ['dags'], response: { 200: tagList } } }, () => ({
    tags: uniqueTags(allDags(cluster)),
    errors: [],
  }));
}

/**
 * A rename is a new DAG resource under the new file name, then the old one deleted; when the
 * DAG's name came from its file name, its runs are listed under the new name (history follows).
 * Each step is safe to repeat, so a rename cut short can be finished by asking again.
 */
async function renameDag(cluster: Cluster, from: string, to: string, by: Requester): Promise<void> {
  const entry = dagOf(cluster, from);
  const oldName = entry.load.dag.name;
  const runs = cluster.cache.runIndex.runsOf(oldName);
  if (runs.some(isActiveRun))
    throw new ApiError('not_running', `DAG "${from}" is running; rename it when its runs have ended`);
  const load = loadDag(entry.yaml, { fileName: to });
  await cluster.writer.createDag(to, entry.yaml, load.documents, by).catch(taken(to));
  if (load.dag.name !== oldName) {
    for (const run of runs)
      if (runIdentity(run).name === oldName) await cluster.writer.relistRun(run, load.dag.name, by);
    // Archived runs follow too; before the old DAG goes, so that asking again finishes a rename cut short.
    await cluster.history?.relist(cluster.cache.namespace, oldName, load.dag.name);
  }
  await cluster.writer.deleteDag(entry.resource.metadata?.name ?? '');
}
