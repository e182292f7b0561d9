/**
 * The CustomResourceDefinitions of Kubedag, generated from schemas.ts (`make generate` writes
 * crds/; `make verify` fails when they are stale).
 */
import type { TSchema } from 'typebox';
import { GROUP, VERSION } from './constants.ts';
import { KIND_NAMES, type KindNames } from './kinds.ts';
import {
  dagQueueSpecSchema,
  dagQueueStatusSchema,
  dagRunSegmentSpecSchema,
  dagRunSpecSchema,
  dagRunStatusSchema,
  dagSpecSchema,
  dagStatusSchema,
} from './schemas.ts';
import { structural } from './structural.ts';

interface Column {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
}

interface Kind extends KindNames {
  readonly description: string;
  readonly spec: TSchema;
  /** Absent for a kind without a status (and so without the status subresource). */
  readonly status?: TSchema;
  readonly specRequired: boolean;
  readonly columns: readonly Column[];
}

const age: Column = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since creation.',
};

export const KINDS: readonly Kind[] = [
  {
    ...KIND_NAMES.dag,
    description: 'A workflow definition in the Dagu DAG format.',
    spec: dagSpecSchema,
    status: dagStatusSchema,
    specRequired: true,
    columns: [
      { name: 'Schedule', type: 'string', jsonPath: '.status.schedule', description: 'Start schedules.' },
      { name: 'Suspended', type: 'boolean', jsonPath: '.status.suspended', description: 'Scheduling is off.' },
      {
        name: 'Last Run',
        type: 'string',
        jsonPath: '.status.latestRun.statusLabel',
        description: 'Status of the latest run.',
      },
      {
        name: 'Valid',
        type: 'boolean',
        jsonPath: '.status.valid',
        description: 'The definition loads without errors.',
        priority: 1,
      },
      age,
    ],
  },
  {
    ...KIND_NAMES.dagRun,
    description: 'One run of a DAG: its steps run as Pods.',
    spec: dagRunSpecSchema,
    status: dagRunStatusSchema,
    specRequired: true,
    columns: [
      { name: 'DAG', type: 'string', jsonPath: '.spec.dagName', description: 'DAG name.' },
      { name: 'Status', type: 'string', jsonPath: '.status.statusLabel', description: 'Run status.' },
      { name: 'Progress', type: 'string', jsonPath: '.status.progress', description: 'Finished steps / all steps.' },
      { name: 'Run ID', type: 'string', jsonPath: '.spec.dagRunId', description: 'Run id.', priority: 1 },
      age,
    ],
  },
  {
    ...KIND_NAMES.dagRunSegment,
    description:
      "An immutable piece of a DAGRun kept beside it: a sealed batch of finished step records, or the run's frozen definition. Owned by the run.",
    spec: dagRunSegmentSpecSchema,
    specRequired: true,
    columns: [
      { name: 'Run', type: 'string', jsonPath: '.spec.run', description: 'The DAGRun.' },
      { name: 'Index', type: 'integer', jsonPath: '.spec.index', description: "Order among the run's step segments." },
      age,
    ],
  },
  {
    ...KIND_NAMES.dagQueue,
    description: 'A named queue that limits how many runs go at once.',
    spec: dagQueueSpecSchema,
    status: dagQueueStatusSchema,
    specRequired: true,
    columns: [
      { name: 'Max', type: 'integer', jsonPath: '.spec.maxConcurrency', description: 'Most runs at once.' },
      { name: 'Running', type: 'integer', jsonPath: '.status.running', description: 'Runs running.' },
      { name: 'Queued', type: 'integer', jsonPath: '.status.queued', description: 'Runs waiting.' },
      age,
    ],
  },
];

export function customResourceDefinition(kind: Kind): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${kind.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: {
        kind: kind.kind,
        listKind: `${kind.kind}List`,
        plural: kind.plural,
        singular: kind.singular,
        // Left out when empty, as the API server stores it (see dialect-merge.ts).
        ...(kind.shortNames.length > 0 ? { shortNames: [...kind.shortNames] } : {}),
        categories: ['kubedag'],
      },
      scope: 'Namespaced',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          ...(kind.status === undefined ? {} : { subresources: { status: {} } }),
          additionalPrinterColumns: kind.columns.map((c) => ({ ...c })),
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: kind.description,
              properties: {
                apiVersion: { type: 'string', description: 'API version of this object.' },
                kind: { type: 'string', description: 'Kind of this object.' },
                metadata: { type: 'object' },
                spec: structural(kind.spec),
                ...(kind.status === undefined ? {} : { status: structural(kind.status) }),
              },
              ...(kind.specRequired ? { required: ['spec'] } : {}),
            },
          },
        },
      ],
    },
  };
}
