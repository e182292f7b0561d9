/**
 * The run's steps as a graph (the DAG page's StepGraph): each box coloured by the step's status
 * in this run, handlers that ran in their own row; choosing a box opens that step's log. A run
 * too big to draw shows its steps grouped by status, each group opening its rows in the table.
 */
import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { StepGraph, type GraphHandler, type GraphStep } from '../../components/graph/StepGraph.tsx';
import { ranHandlers } from '../../lib/handlers.ts';
import type { RunDetails } from './queries.ts';

/** The graph's steps and handlers from the run's nodes. Pure. */
export function runGraph(run: RunDetails): { steps: GraphStep[]; handlers: GraphHandler[] } {
  const steps = run.nodes.map((node) => ({
    name: node.step.name,
    depends: node.step.depends,
    status: node.statusLabel,
    ...(node.step.description === undefined || node.step.description === ''
      ? {}
      : { description: node.step.description }),
    ...(node.step.parallel === undefined || node.step.parallel === null ? {} : { parallel: true }),
  }));
  const handlers = ranHandlers(run).map(({ key, node }): GraphHandler => ({
    event: key,
    name: node.step.name,
    status: node.statusLabel,
  }));
  return { steps, handlers };
}

interface RunGraphProps {
  readonly run: RunDetails;
  readonly stepHref: (name: string) => string | undefined;
  /** A run too big to draw is grouped by status: this lists one status's steps. */
  readonly onGroup: (status: string) => void;
}

export function RunGraph({ run, stepHref, onGroup }: RunGraphProps): ReactNode {
  const navigate = useNavigate();
  const { steps, handlers } = runGraph(run);
  if (steps.length === 0) return null;
  return (
    <section className="card run-section" aria-labelledby="run-graph">
      <h2 id="run-graph">Graph</h2>
      <StepGraph
        steps={steps}
        handlers={handlers}
        label={`Steps of run ${run.dagRunId}`}
        onGroup={onGroup}
        onSelect={(name) => {
          const href = stepHref(name);
          if (href !== undefined) void navigate(href);
        }}
      />
    </section>
  );
}
