/**
 * SLOT: the step graph of the run.
 *
 * The reusable step graph (ui/src/components/graph/) is built on the DAG page's branch; once
 * both are merged, this component renders it with the run's nodes (statuses on the graph,
 * each step linking to its log) and the run page needs no other change. Until then it renders
 * a hidden marker (`data-slot="step-graph"`), so the page shows the timeline and steps alone.
 */
import type { ReactNode } from 'react';
import type { RunNode } from './queries.ts';

export interface RunGraphProps {
  /** The run's step nodes in definition order; `node.step.depends` gives the edges. */
  readonly nodes: readonly RunNode[];
  /** Handler nodes that ran, by event (success, failure, cancel, exit). */
  readonly handlers: readonly { readonly event: string; readonly node: RunNode }[];
  /** Where a step leads: its log page. */
  readonly stepHref: (node: RunNode) => string;
}

export function RunGraphSlot({ nodes }: RunGraphProps): ReactNode {
  // Wired after the merge: the graph, given these props, inside a card titled "Graph".
  return <div className="run-graph-slot" data-slot="step-graph" data-steps={nodes.length} hidden />;
}
