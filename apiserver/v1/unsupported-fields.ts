/**
 * Request fields of Dagu 2.x's `/api/v1` bodies (read in `api/v1/api.yaml` at v2.15.1) that the
 * shared handlers do not have. The bodies ignore fields they do not define (a 1.24 decision for
 * fields the contract does not know), but these v1's contract defines, so a value that asks for
 * something is refused with 400 `bad_request` rather than ignored; a value that asks for nothing
 * (false, empty) is accepted. `noReuse` is not here: Kubedag never reuses an earlier run's
 * results, so it is always honoured. The fields are documented on the v1 body, each saying so.
 */
import type { FastifyRequest, RouteOptions } from 'fastify';
import Type, { type TSchema } from 'typebox';
import { ApiError } from '../errors.ts';
import { edgeKey } from './edges.ts';

export interface UnsupportedField {
  readonly name: string;
  readonly schema: TSchema;
  /** True when the value asks for nothing Kubedag does not do. */
  readonly asksNothing: (value: unknown) => boolean;
  /** Why it is refused, after "<name> is not supported: ". */
  readonly why: string;
}

const emptyList = (value: unknown): boolean => !Array.isArray(value) || value.length === 0;
const notTrue = (value: unknown): boolean => value !== true;
const blank = (value: unknown): boolean => typeof value !== 'string' || value.trim() === '';

const labelList = (deprecated: boolean) =>
  Type.Array(Type.String(), {
    description: `${deprecated ? 'Deprecated alias of labels. ' : ''}Not supported: Kubedag's runs have no labels of their own (a DAG's labels are its tags); a non-empty list is refused with 400.`,
  });

const RUN_FIELDS: readonly UnsupportedField[] = [
  {
    name: 'labels',
    schema: labelList(false),
    asksNothing: emptyList,
    why: "Kubedag's runs have no labels of their own",
  },
  { name: 'tags', schema: labelList(true), asksNothing: emptyList, why: "Kubedag's runs have no labels of their own" },
  {
    name: 'profile',
    schema: Type.String({
      description: 'Not supported: Kubedag has no runtime profiles; a profile name is refused with 400.',
    }),
    asksNothing: blank,
    why: 'Kubedag has no runtime profiles',
  },
];

const ENQUEUE_SINGLETON: UnsupportedField = {
  name: 'singleton',
  schema: Type.Boolean({ description: 'Not supported on enqueue: true is refused with 400.' }),
  asksNothing: notTrue,
  why: 'enqueue does not check for a running or queued run of the DAG',
};

/** Keyed like the edges, `METHOD /path` under /api/v1 in fastify's spelling. */
export const UNSUPPORTED_FIELDS: Readonly<Record<string, readonly UnsupportedField[]>> = {
  'POST /dags/:fileName/start': RUN_FIELDS,
  'POST /dags/:fileName/start-sync': RUN_FIELDS,
  'POST /dags/:fileName/enqueue': [...RUN_FIELDS, ENQUEUE_SINGLETON],
  'POST /dag-runs': RUN_FIELDS,
  'POST /dag-runs/enqueue': [...RUN_FIELDS, ENQUEUE_SINGLETON],
  'POST /dag-runs/:name/:dagRunId/retry': [
    {
      name: 'includeDownstream',
      schema: Type.Boolean({
        description: 'Not supported: a retry of one step leaves its dependents; true is refused with 400.',
      }),
      asksNothing: notTrue,
      why: 'a retry of one step leaves the steps after it as they are',
    },
    {
      name: 'subDAGRunId',
      schema: Type.String({
        description: 'Not supported: retry the sub-run through its own run; a value is refused with 400.',
      }),
      asksNothing: (value) => value === undefined,
      why: 'a step of a sub-run is retried through the sub-run itself',
    },
  ],
  'POST /dag-runs/:name/:dagRunId/reschedule': [
    {
      name: 'useCurrentDagFile',
      schema: Type.Boolean({
        description: "Not supported: a rescheduled run uses the run's stored definition; true is refused with 400.",
      }),
      asksNothing: notTrue,
      why: "a rescheduled run uses the run's stored definition",
    },
  ],
};

/** The refusal for a body, or undefined when every field of the list asks for nothing. Pure. */
export function unsupportedFieldProblem(fields: readonly UnsupportedField[], body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const values = body as Record<string, unknown>;
  const asked = fields.find((field) => Object.hasOwn(values, field.name) && !field.asksNothing(values[field.name]));
  return asked === undefined ? undefined : `${asked.name} is not supported: ${asked.why}`;
}

/** An `onRoute` hook's work under /api/v1: the fields documented on the body, and refused when they ask. */
export function applyUnsupportedFields(
  route: RouteOptions,
  prefix: string,
  table: Readonly<Record<string, readonly UnsupportedField[]>> = UNSUPPORTED_FIELDS,
): void {
  const fields = table[edgeKey(route, prefix)];
  if (fields === undefined) return;
  const schema = (route.schema ?? {}) as { body?: { properties?: Record<string, unknown> } };
  if (schema.body !== undefined) {
    const added = Object.fromEntries(fields.map((field) => [field.name, field.schema]));
    route.schema = { ...route.schema, body: { ...schema.body, properties: { ...schema.body.properties, ...added } } };
  }
  // A hook of one argument that returns a promise: fastify awaits it and answers its rejection.
  const refuse = (request: FastifyRequest): Promise<void> => {
    const problem = unsupportedFieldProblem(fields, request.body);
    return problem === undefined ? Promise.resolve() : Promise.reject(new ApiError('bad_request', problem));
  };
  route.preHandler = [...[route.preHandler ?? []].flat(), refuse];
}
