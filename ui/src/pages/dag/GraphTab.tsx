/**
 * The graph tab: the DAG's steps as it is defined now, coloured by the latest run's statuses
 * (matched by step name: a step the run did not have shows none), with that run linked, and
 * the selected step's definition and latest result beside it.
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useApi } from '../../api/context.tsx';
import {
  dagRunQuery,
  type DagDetails,
  type DagRunDetails,
  type DagStepObject,
  type RunNode,
} from '../../api/dag-queries.ts';
import { StepGraph, type GraphHandler, type GraphStep } from '../../components/graph/StepGraph.tsx';
import { Icon } from '../../components/Icon.tsx';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { HANDLERS } from '../../lib/handlers.ts';
import { links } from '../../lib/links.ts';
import { duration, instant } from '../../lib/time.ts';

/** What a step does, in one line: its command, the DAG it calls, or its executor. */
export function stepDetail(step: DagStepObject): string {
  if (step.call !== undefined && step.call !== '') return `call ${step.call}`;
  const command = step.cmdWithArgs ?? step.command ?? '';
  if (command !== '') return command.split('\n')[0] ?? command;
  if (step.script !== undefined && step.script !== '') return 'script';
  return step.executor.type;
}

function graphSteps(
  details: DagDetails,
  run: DagRunDetails | undefined,
): { steps: GraphStep[]; handlers: GraphHandler[] } {
  const nodes = new Map(run?.nodes.map((node) => [node.step.name, node]));
  const steps = details.dag.steps.map((step) => ({
    name: step.name,
    depends: step.depends,
    status: nodes.get(step.name)?.statusLabel,
    description: step.description,
    detail: stepDetail(step),
    parallel: step.parallel !== undefined,
  }));
  const handlers = HANDLERS.flatMap(({ key, event }): GraphHandler[] => {
    const step = details.dag.handlerOn[event];
    if (step === undefined) return [];
    return [
      {
        event: key,
        name: key,
        status: run?.[key]?.statusLabel,
        description: step.description,
        detail: stepDetail(step),
      },
    ];
  });
  return { steps, handlers };
}

/** A step's definition by name; handlers go by their event's name, as in runs. */
function definitionOf(details: DagDetails, name: string): DagStepObject | undefined {
  const handler = HANDLERS.find(({ key }) => key === name);
  return handler === undefined
    ? details.dag.steps.find((step) => step.name === name)
    : details.dag.handlerOn[handler.event];
}

function nodeOf(run: DagRunDetails | undefined, name: string): RunNode | undefined {
  const handler = HANDLERS.find(({ key }) => key === name);
  if (run === undefined) return undefined;
  return handler === undefined ? run.nodes.find((node) => node.step.name === name) : (run[handler.key] ?? undefined);
}

function LatestRun({
  details,
  run,
}: {
  readonly details: DagDetails;
  readonly run: DagRunDetails | undefined;
}): ReactNode {
  const now = useNow();
  const latest = details.latestDAGRun;
  if (latest.dagRunId === '')
    return <p className="latest-run muted">No runs yet. Start one to see its statuses here.</p>;
  const started = instant(latest.startedAt);
  const finished = instant(latest.finishedAt);
  return (
    <p className="latest-run">
      <span className="latest-run-label">Latest run</span>
      <StatusBadge label={run?.statusLabel ?? latest.statusLabel} status={run?.status ?? latest.status} />
      <Link to={links.run(latest.name, latest.dagRunId)} className="mono latest-run-link">
        {latest.dagRunId}
      </Link>
      {started === undefined ? null : (
        <span className="muted">
          started <RelativeTime at={started} />
          <span className="detail-sep">{duration((finished ?? now) - started)}</span>
        </span>
      )}
    </p>
  );
}

/** What the panel says of a step: its definition, then how it went in the latest run. */
function facts(step: DagStepObject | undefined, node: RunNode | undefined): [string, ReactNode][] {
  const list: [string, ReactNode][] = [];
  if (step !== undefined) {
    if (step.description !== undefined && step.description !== '') list.push(['Description', step.description]);
    list.push(['Runs', <code className="step-command">{stepDetail(step)}</code>]);
    if (step.depends.length > 0) list.push(['After', step.depends.join(', ')]);
  }
  if (node === undefined) return list;
  const started = instant(node.startedAt);
  const finished = instant(node.finishedAt);
  if (started !== undefined) list.push(['Started', <RelativeTime at={started} />]);
  // Step times may be whole seconds: a quick step starts and ends in the same one.
  if (started !== undefined && finished !== undefined)
    list.push(['Took', finished - started < 1000 ? 'under a second' : duration(finished - started)]);
  if (node.retryCount > 0) list.push(['Retries', node.retryCount]);
  if (node.error !== '') list.push(['Error', <span className="step-error">{node.error}</span>]);
  return list;
}

function StepPanel({
  name,
  step,
  node,
  runPage,
  onClose,
}: {
  readonly name: string;
  readonly step: DagStepObject | undefined;
  readonly node: RunNode | undefined;
  readonly runPage: string | undefined;
  readonly onClose: () => void;
}): ReactNode {
  return (
    <section className="card step-panel" aria-label={`Step ${name}`}>
      <header className="step-panel-header">
        <h2 className="mono">{name}</h2>
        {node === undefined ? null : <StatusBadge label={node.statusLabel} />}
        <button type="button" className="button button-quiet step-panel-close" onClick={onClose}>
          <Icon name="close" size={16} label="Close the step" />
        </button>
      </header>
      <dl className="facts">
        {facts(step, node).map(([term, value]) => (
          <div key={term} className="fact">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {runPage === undefined || node === undefined || node.status === 0 ? null : (
        <p className="step-panel-links">
          <Link to={links.stepLog(runPage, name)}>Output</Link>
          <Link to={links.stepLog(runPage, name, 'stderr')}>Errors</Link>
          <Link to={runPage}>The run</Link>
        </p>
      )}
    </section>
  );
}

export function GraphTab({
  fileName,
  details,
}: {
  readonly fileName: string;
  readonly details: DagDetails;
}): ReactNode {
  const client = useApi();
  const latest = details.latestDAGRun;
  const run = useQuery({ ...dagRunQuery(client, fileName, latest.dagRunId), enabled: latest.dagRunId !== '' });
  const [selected, setSelected] = useState<string>();
  // A new run replaces the old one's statuses at once rather than after its own fetch.
  const current = run.data?.dagRunId === latest.dagRunId ? run.data : undefined;
  const { steps, handlers } = graphSteps(details, current);
  const runPage = latest.dagRunId === '' ? undefined : links.run(latest.name, latest.dagRunId);
  return (
    <div className="graph-tab">
      <LatestRun details={details} run={current} />
      <StepGraph
        steps={steps}
        handlers={handlers}
        selected={selected}
        onSelect={(name) => {
          setSelected(name === selected ? undefined : name);
        }}
        label={`Steps of ${details.dag.name}`}
      />
      {selected === undefined ? null : (
        <StepPanel
          name={selected}
          step={definitionOf(details, selected)}
          node={nodeOf(current, selected)}
          runPage={runPage}
          onClose={() => {
            setSelected(undefined);
          }}
        />
      )}
    </div>
  );
}
