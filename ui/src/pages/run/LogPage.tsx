/**
 * A log page: the run's log (`<runPage>/log`) or a step's stdout or stderr
 * (`<runPage>/steps/:stepName/log?stream=stderr`), for root runs and sub-runs. The stream and
 * the step can be switched from the page; the log follows while its step (or run) is active.
 */
import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { LogView } from '../../components/logs/LogView.tsx';
import type { LogQuery } from '../../components/logs/paging.ts';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { links } from '../../lib/links.ts';
import { breadcrumbs, isActive, runAddress, runPage as pageOf, type RunAddress } from './address.ts';
import { readLog, runDetailsQuery, runKey, type LogSource, type RunDetails, type RunNode } from './queries.ts';
import { Breadcrumbs } from './RunHeader.tsx';
import { handlerRows } from './RunPage.tsx';
import './run.css';

function nodesOf(run: RunDetails | undefined): RunNode[] {
  return run === undefined ? [] : [...run.nodes, ...handlerRows(run).map((h) => h.node)];
}

/** A log keeps growing while its step may still write: running, or not yet run in an active run. */
function isLive(run: RunDetails | undefined, node: RunNode | undefined, step: boolean): boolean {
  if (run === undefined || !isActive(run)) return false;
  return !step || node === undefined || node.finishedAt === '' || node.statusLabel === 'running';
}

/** Changes when the step starts another attempt, whose log is another file. */
function attemptOf(node: RunNode | undefined): string {
  if (node === undefined) return '';
  return `${String(node.retryCount)}.${String(node.doneCount)}.${String(node.attempts?.at(-1)?.attempt ?? 0)}`;
}

function StreamSwitch({
  runPage,
  stepName,
  stream,
}: {
  readonly runPage: string;
  readonly stepName: string;
  readonly stream: 'stdout' | 'stderr';
}): ReactNode {
  return (
    <nav className="segmented log-streams" aria-label="Stream">
      {(['stdout', 'stderr'] as const).map((s) => (
        <Link key={s} to={links.stepLog(runPage, stepName, s)} replace aria-current={s === stream ? 'page' : undefined}>
          {s}
        </Link>
      ))}
    </nav>
  );
}

function LogPicker({
  run,
  runPage,
  stepName,
  stream,
}: {
  readonly run: RunDetails | undefined;
  readonly runPage: string;
  readonly stepName: string | undefined;
  readonly stream: 'stdout' | 'stderr';
}): ReactNode {
  const navigate = useNavigate();
  const names = nodesOf(run).map((n) => n.step.name);
  const options = stepName === undefined || names.includes(stepName) ? names : [stepName, ...names];
  return (
    <label className="log-picker">
      <span className="visually-hidden">Log</span>
      <select
        className="select"
        value={stepName ?? ''}
        onChange={(event) => {
          const name = event.target.value;
          void navigate(name === '' ? links.runLog(runPage) : links.stepLog(runPage, name, stream), { replace: true });
        }}
      >
        <option value="">Run log</option>
        {options.map((name) => (
          <option key={name} value={name}>
            Step {name}
          </option>
        ))}
      </select>
    </label>
  );
}

function Title({
  run,
  node,
  stepName,
  stream,
}: {
  readonly run: RunDetails | undefined;
  readonly node: RunNode | undefined;
  readonly stepName: string | undefined;
  readonly stream: string;
}): ReactNode {
  return (
    <div className="run-title">
      <h1>
        {stepName === undefined ? (
          'Run log'
        ) : (
          <>
            <span className="mono">{stepName}</span> <span className="log-stream-name">{stream}</span>
          </>
        )}
        {node === undefined ? (
          run === undefined ? null : (
            <StatusBadge label={run.statusLabel} status={run.status} />
          )
        ) : (
          <StatusBadge label={node.statusLabel} />
        )}
      </h1>
    </div>
  );
}

export function LogPage(): ReactNode {
  const params = useParams();
  const address = runAddress(params);
  if (address === undefined) throw new Error('a log page without a run');
  const stepName = params.stepName;
  const [search] = useSearchParams();
  const stream = search.get('stream') === 'stderr' ? 'stderr' : 'stdout';
  return (
    <LogScreen
      key={`${pageOf(address)}|${stepName ?? ''}|${stream}`}
      address={address}
      stepName={stepName}
      stream={stream}
    />
  );
}

function LogScreen({
  address,
  stepName,
  stream,
}: {
  readonly address: RunAddress;
  readonly stepName: string | undefined;
  readonly stream: 'stdout' | 'stderr';
}): ReactNode {
  const client = useApi();
  const run = useQuery(runDetailsQuery(client, address)).data;
  const page = pageOf(address);
  const node = stepName === undefined ? undefined : nodesOf(run).find((n) => n.step.name === stepName);
  const source: LogSource = stepName === undefined ? { kind: 'run' } : { kind: 'step', stepName, stream };
  const label = stepName === undefined ? 'Run log' : `${stream} of step ${stepName}`;
  const read = (query: LogQuery, signal?: AbortSignal) => readLog(client, address, source, query, signal);
  const runId = address.subDagRunId ?? address.dagRunId;
  const crumbs =
    run === undefined ? [] : breadcrumbs(run).map((c, i, all) => (i === all.length - 1 ? { ...c, href: page } : c));
  return (
    <div className="page run-page log-page">
      <header className="run-header">
        <Breadcrumbs crumbs={crumbs} last={stepName === undefined ? 'log' : `${stepName} · ${stream}`} />
        <Title run={run} node={node} stepName={stepName} stream={stream} />
        {node === undefined || node.error === '' ? null : <p className="step-error">{node.error}</p>}
      </header>
      <LogView
        label={label}
        queryKey={[...runKey(address), 'log', stepName ?? '', stream, attemptOf(node)]}
        read={read}
        live={isLive(run, node, stepName !== undefined)}
        fileParts={[run?.name ?? address.name, runId, ...(stepName === undefined ? ['run'] : [stepName, stream])]}
      >
        <LogPicker run={run} runPage={page} stepName={stepName} stream={stream} />
        {stepName === undefined ? null : <StreamSwitch runPage={page} stepName={stepName} stream={stream} />}
      </LogView>
    </div>
  );
}
