/**
 * Runs in a table that renders only the rows on screen (TanStack Virtual, scrolled by the
 * window), so thousands of runs cost a screenful of rows. Rows between the top and the first
 * drawn row, and after the last, are spacer rows of the right height; aria-rowcount and
 * aria-rowindex tell assistive technology where each drawn row sits in the whole list.
 */
import { useWindowVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { StatusBadge } from '../../components/StatusBadge.tsx';
import { RelativeTime, useNow } from '../../components/Time.tsx';
import { links } from '../../lib/links.ts';
import { duration, instant, short } from '../../lib/time.ts';
import type { RunSummary } from './queries.ts';

const COLUMNS = 4;
/**
 * A row's height before it is drawn and measured: a wide screen's row (two lines of text),
 * so the list's estimated length is right and End lands on the last run.
 */
const ROW_ESTIMATE_PX = 69;

function RunRow({ run, index, measure }: { readonly run: RunSummary; readonly index: number; readonly measure: (row: HTMLTableRowElement | null) => void }): ReactNode {
  const now = useNow();
  const started = instant(run.startedAt);
  const finished = instant(run.finishedAt);
  const queued = instant(run.queuedAt);
  return (
    <tr ref={measure} data-index={index} aria-rowindex={index + 2}>
      <td className="cell-status" data-label="Status">
        <StatusBadge label={run.statusLabel} status={run.status} />
      </td>
      <td className="cell-run-name">
        <Link to={links.run(run.name, run.dagRunId)} className="run-link">
          <span className="run-dag">{run.name}</span>
          <span className="run-id mono">{run.dagRunId}</span>
        </Link>
      </td>
      <td className="cell-started" data-label="Started">
        {started !== undefined ? (
          <>
            <RelativeTime at={started} />
            <div className="cell-detail">{short(started)}</div>
          </>
        ) : queued !== undefined ? (
          <>
            queued <RelativeTime at={queued} />
            <div className="cell-detail">{short(queued)}</div>
          </>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td className="cell-duration" data-label="Duration">
        {started === undefined ? <span className="muted">—</span> : duration((finished ?? now) - started)}
      </td>
    </tr>
  );
}

function Spacer({ height }: { readonly height: number }): ReactNode {
  if (height <= 0) return null;
  return (
    <tr className="spacer-row" aria-hidden="true" style={{ height }}>
      <td colSpan={COLUMNS} />
    </tr>
  );
}

/** Where the list starts on the page, for the window scroll to be read against. */
function usePageTop(element: React.RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = (): void => {
      const box = element.current?.getBoundingClientRect();
      if (box !== undefined) setTop(box.top + window.scrollY);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return top;
}

export function RunTable({ runs }: { readonly runs: readonly RunSummary[] }): ReactNode {
  const body = useRef<HTMLTableSectionElement>(null);
  const scrollMargin = usePageTop(body);
  const virtualizer = useWindowVirtualizer({ count: runs.length, estimateSize: () => ROW_ESTIMATE_PX, overscan: 8, scrollMargin, getItemKey: (index) => `${runs[index]?.name ?? ''}/${runs[index]?.dagRunId ?? String(index)}` });
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  const before = first === undefined ? 0 : first.start - scrollMargin;
  const after = last === undefined ? 0 : virtualizer.getTotalSize() - (last.end - scrollMargin);
  return (
    <div className="table-wrap">
      <table className="table run-table" aria-rowcount={runs.length + 1}>
        <colgroup>
          <col className="col-status" />
          <col className="col-run" />
          <col className="col-started" />
          <col className="col-duration" />
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            <th scope="col">Status</th>
            <th scope="col">DAG and run</th>
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
          </tr>
        </thead>
        <tbody ref={body}>
          <Spacer height={before} />
          {items.map((item) => {
            const run = runs[item.index];
            return run === undefined ? null : <RunRow key={item.key} run={run} index={item.index} measure={virtualizer.measureElement} />;
          })}
          <Spacer height={after} />
        </tbody>
      </table>
    </div>
  );
}
