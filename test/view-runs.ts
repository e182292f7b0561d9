import type { DagRunSpec, DagRunStatus, RunNode } from '../core/resources/schemas.ts';
import type { DagRunResource } from '../core/resources/types.ts';
import { dagRun as aDagRun } from './builders/dag-run.ts';

export interface RunOptions {
  readonly spec?: Partial<DagRunSpec>;
  readonly status?: DagRunStatus;
  readonly created?: string | Date;
  readonly annotations?: Record<string, string>;
}

/** A DAGRun of `dag` with id `id`, as the API's starter creates it. */
export function dagRun(dag: string, id: string, options: RunOptions = {}): DagRunResource {
  const builder = aDagRun(`${dag}-${id}`)
    .of(dag, id)
    .spec(options.spec ?? {});
  if (options.created !== undefined) builder.created(options.created);
  if (options.annotations !== undefined) builder.annotate(options.annotations);
  return (options.status === undefined ? builder : builder.status(options.status)).build();
}

export const node = (name: string, status: number, extra: Partial<RunNode> = {}): RunNode => ({
  name,
  status,
  statusLabel: '',
  ...extra,
});

export const noRuns = (): DagRunResource | undefined => undefined;
