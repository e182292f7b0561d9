/**
 * A run's steps (or its handlers) as a table: status, duration and start, exit code, retries
 * and repeats, logs; under each name what it ran, its sub-runs, outputs and error. On a phone each
 * row becomes a card. Ended runs offer per-step actions (StepActions.tsx).
 *
 * A run may have 10,000 steps: only the rows on screen are drawn (window-rows.tsx), each
 * measured once drawn, with aria-rowcount and aria-rowindex saying where a row sits.
 */
import { useRef, type ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { instant } from '../../lib/time.ts';
import { elapsed } from '../../components/timeline/geometry.ts';
import { SpacerRow, useWindowRows } from '../../components/window-rows.tsx';
import type { RunAddress } from './address.ts';
import type { RunNode } from './queries.ts';
import './steps.css';

/** A step's row: its node, and for a handler which event it handles. */
export interface StepRow {
  readonly node: RunNode;
  readonly handles?: string;
}

interface TableProps {
  readonly rows: readonly StepRow[];
  readonly address: RunAddress;
  readonly runPage: string;
  readonly caption: string;
  /** Per-row actions, when the run allows any. */
  readonly actions?: (node: RunNode) => ReactNode;
}

/**
 * A row's height before it is drawn and measured: a wide screen's step with its command under
 * the name, so the list's estimated length is about right before its rows were seen.
 */
const ROW_ESTIMATE_PX = 74;

/** Sub-runs shown before the rest fold away (a parallel step may have hundreds). */
const SUB_RUNS_SHOWN = 12;

function SubRunLinks({ node, address }: { readonly node: RunNode; readonly address: RunAddress }): ReactNode {
  const all = [...node.subRuns, ...node.subRunsRepeated];
  if (all.length === 0) return null;
  const item = (sub: (typeof all)[number]): ReactNode => (
    <li key={sub.dagRunId}>
      <Link to={links.subRun(address.name, address.dagRunId, sub.dagRunId)} className="sub-run">
        {sub.statusLabel === undefined ? null : <StatusBadge label={sub.statusLabel} status={sub.status} />}
        <span className="mono">{sub.dagRunId}</span>
      </Link>
    </li>
  );
  return (
    <div className="step-subruns">
      <span className="step-label">{all.length === 1 ? 'Sub-run' : `Sub-runs (${String(all.length)})`}</span>
      <ul className="sub-runs">{all.slice(0, SUB_RUNS_SHOWN).map(item)}</ul>
      {all.length > SUB_RUNS_SHOWN ? (
        <details>
          <summary>{all.length - SUB_RUNS_SHOWN} more</summary>
          <ul className="sub-runs">{all.slice(SUB_RUNS_SHOWN).map(item)}</ul>
        </details>
      ) : null}
    </div>
  );
}

function Outputs({ outputs }: { readonly outputs: Readonly<Record<string, string>> | undefined }): ReactNode {
  const entries = Object.entries(outputs ?? {});
  if (entries.length === 0) return null;
  return (
    <dl className="step-outputs" aria-label="Outputs">
      {entries.map(([key, value]) => (
        <div key={key}>
          <dt className="mono">{key}</dt>
          <dd className="mono" title={value}>
            {value === '' ? <span className="muted">(empty)</span> : value}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function StepCell({ row, address }: { readonly row: StepRow; readonly address: RunAddress }): ReactNode {
  const { step } = row.node;
  const command =
    step.call === undefined || step.call === '' ? (step.cmdWithArgs ?? step.command ?? step.script ?? '') : '';
  return (
    <td className="cell-step">
      <div className="step-title">
        {row.handles === undefined ? null : <span className="badge badge-muted">{row.handles}</span>}
        <span className="step-name">{step.name}</span>
      </div>
      {step.description === undefined || step.description === '' ? null : (
        <p className="step-description">{step.description}</p>
      )}
      {command === '' ? null : (
        <code className="step-command" title={command}>
          {command}
        </code>
      )}
      {step.call === undefined || step.call === '' ? null : (
        <p className="step-call">
          Calls <Link to={links.dag(step.call)}>{step.call}</Link>
        </p>
      )}
      <SubRunLinks node={row.node} address={address} />
      <Outputs outputs={row.node.outputs} />
      {row.node.error === '' ? null : <p className="step-error">{row.node.error}</p>}
    </td>
  );
}

function TimeCell({ node }: { readonly node: RunNode }): ReactNode {
  const now = useNow();
  const started = instant(node.startedAt);
  const finished = instant(node.finishedAt);
  if (started === undefined) {
    return (
      <td data-label="Time" className="muted">
        —
      </td>
    );
  }
  return (
    <td data-label="Time" className="cell-nowrap">
      <span className="cell-number">{elapsed((finished ?? Math.max(now, started)) - started)}</span>
      <div className="cell-detail">
        <RelativeTime at={started} />
      </div>
    </td>
  );
}

function RetriesCell({ node }: { readonly node: RunNode }): ReactNode {
  const marks = [
    node.retryCount > 0 ? `${String(node.retryCount)} ${node.retryCount === 1 ? 'retry' : 'retries'}` : '',
    node.doneCount > 1 ? `ran ${String(node.doneCount)}×` : '',
  ].filter((m) => m !== '');
  return (
    <td data-label="Retries" className="cell-nowrap">
      {marks.length === 0 ? <span className="muted">—</span> : marks.join(', ')}
    </td>
  );
}

function LogsCell({ node, runPage }: { readonly node: RunNode; readonly runPage: string }): ReactNode {
  if (node.startedAt === '' && node.attempts === undefined) {
    return (
      <td data-label="Logs" className="muted">
        —
      </td>
    );
  }
  return (
    <td data-label="Logs" className="cell-nowrap">
      <Link to={links.stepLog(runPage, node.step.name)} aria-label={`stdout of ${node.step.name}`}>
        stdout
      </Link>
      <span className="detail-sep" />
      <Link to={links.stepLog(runPage, node.step.name, 'stderr')} aria-label={`stderr of ${node.step.name}`}>
        stderr
      </Link>
    </td>
  );
}

function StepRowView({
  row,
  index,
  address,
  runPage,
  actions,
  measure,
}: {
  readonly row: StepRow;
  readonly index: number;
  readonly measure: (row: HTMLTableRowElement | null) => void;
} & Pick<TableProps, 'address' | 'runPage' | 'actions'>): ReactNode {
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index + 2} data-step={row.node.step.name}>
      <StepCell row={row} address={address} />
      <td data-label="Status">
        <StatusBadge label={row.node.statusLabel} />
      </td>
      <TimeCell node={row.node} />
      <td data-label="Exit code" className="cell-number">
        {row.node.exitCode === undefined ? (
          <span className="muted">—</span>
        ) : (
          <span className="mono">{row.node.exitCode}</span>
        )}
      </td>
      <RetriesCell node={row.node} />
      <LogsCell node={row.node} runPage={runPage} />
      {actions === undefined ? null : <td className="cell-actions">{actions(row.node)}</td>}
    </tr>
  );
}

const rowKey = (row: StepRow | undefined): string => `${row?.handles ?? ''}:${row?.node.step.name ?? ''}`;

export function StepsTable({ rows, address, runPage, caption, actions }: TableProps): ReactNode {
  const columns = actions === undefined ? 6 : 7;
  const body = useRef<HTMLTableSectionElement>(null);
  const drawn = useWindowRows(body, rows.length, ROW_ESTIMATE_PX, (index) => rowKey(rows[index]));
  return (
    <div className="steps-frame">
      <div className="table-wrap">
        <table className="table steps-table" aria-rowcount={rows.length + 1}>
          <caption className="visually-hidden">{caption}</caption>
          {/* Fixed widths: a long command or error wraps in its cell instead of widening the table. */}
          <colgroup>
            <col />
            <col className="col-status" />
            <col className="col-time" />
            <col className="col-exit" />
            <col className="col-retries" />
            <col className="col-logs" />
            {actions === undefined ? null : <col className="col-actions" />}
          </colgroup>
          <thead>
            <tr aria-rowindex={1}>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">Time</th>
              <th scope="col">Exit code</th>
              <th scope="col">Retries</th>
              <th scope="col">Logs</th>
              {actions === undefined ? null : (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody ref={body}>
            <SpacerRow height={drawn.before} columns={columns} />
            {drawn.items.map((item) => {
              const row = rows[item.index];
              return row === undefined ? null : (
                <StepRowView
                  key={item.key}
                  row={row}
                  index={item.index}
                  address={address}
                  runPage={runPage}
                  actions={actions}
                  measure={drawn.measure}
                />
              );
            })}
            <SpacerRow height={drawn.after} columns={columns} />
          </tbody>
        </table>
      </div>
    </div>
  );
}
