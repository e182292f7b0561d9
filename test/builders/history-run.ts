/**
 * Finished runs as the operator hands them to the history store:
 * `finished('team-a', 'etl', 'r1').at(T).status(2).build()`. Built on the DAGRun builder, so
 * the resource is the one the rest of the tests know; `build()` gives a fresh copy.
 */
import type { RunNode } from '../../core/resources/schemas.ts';
import { runStatusLabel, stepStatusLabel } from '../../core/resources/status.ts';
import type { RunToArchive } from '../../core/history/types.ts';
import { dagRun, type DagRunBuilder } from './dag-run.ts';

export class FinishedRunBuilder {
  private readonly run: DagRunBuilder;
  private readonly dagName: string;
  private records: RunNode[] | undefined;
  private definition: Record<string, unknown> | undefined;

  constructor(namespace: string, dagName: string, dagRunId: string) {
    this.dagName = dagName;
    this.run = dagRun(`${dagName}-${dagRunId}`.toLowerCase().replace(/[^a-z0-9-]/g, '-'))
      .namespace(namespace)
      .uid(`uid-${dagRunId}`)
      .of(dagName, dagRunId);
    this.status(4).at(Date.UTC(2026, 10, 1));
  }

  /** Created at `ms`, started a second later, finished a minute after that. */
  at(ms: number): this {
    this.run.created(new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z'));
    return this.finishedAt(ms + 61_000).times({ queuedAt: iso(ms), startedAt: iso(ms + 1_000) });
  }

  finishedAt(ms: number): this {
    return this.times({ finishedAt: iso(ms) });
  }

  status(status: number): this {
    this.run.status({ status, statusLabel: runStatusLabel(status) });
    return this;
  }

  params(params: string): this {
    this.run.status({ params });
    return this;
  }

  /** A sub run, with its parent and root as `[dag name, run id]`. */
  child(parent: readonly [string, string], root: readonly [string, string] = parent): this {
    this.run.child(parent, root);
    return this;
  }

  /** `count` succeeded step records handed over beside the status (as if sealed in segments). */
  steps(count: number): this {
    this.records = Array.from({ length: count }, (_, i) => stepRecord(`step-${String(i).padStart(5, '0')}`));
    return this;
  }

  frozen(definition: Record<string, unknown>): this {
    this.definition = definition;
    return this;
  }

  resource(change: (run: DagRunBuilder) => void): this {
    change(this.run);
    return this;
  }

  build(): RunToArchive {
    return {
      dagName: this.dagName,
      run: this.run.build(),
      ...(this.records === undefined ? {} : { nodes: structuredClone(this.records) }),
      ...(this.definition === undefined ? {} : { definition: structuredClone(this.definition) }),
    };
  }

  private times(fields: { queuedAt?: string; startedAt?: string; finishedAt?: string }): this {
    this.run.status(fields);
    return this;
  }
}

export const finished = (namespace: string, dagName: string, dagRunId: string): FinishedRunBuilder =>
  new FinishedRunBuilder(namespace, dagName, dagRunId);

/** A finished step's record of about the size real ones have (~400 bytes). */
export function stepRecord(name: string): RunNode {
  return {
    name,
    status: 4,
    statusLabel: stepStatusLabel(4),
    startedAt: '2026-11-01T00:00:01Z',
    finishedAt: '2026-11-01T00:00:09Z',
    exitCode: 0,
    attempt: 0,
    pod: `run-${name}-0`,
    attempts: [
      { attempt: 0, startedAt: '2026-11-01T00:00:01Z', finishedAt: '2026-11-01T00:00:09Z', status: 4, exitCode: 0 },
    ],
    outputs: { RESULT: `value of ${name}` },
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}
