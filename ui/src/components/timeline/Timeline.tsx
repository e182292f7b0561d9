/**
 * A run's steps as a Gantt chart: a row per step (handlers after, marked), a bar per attempt
 * coloured by how it ended, running bars growing by the second. Each step's name links to its
 * log; retries and repeats are marked beside it. The geometry is in geometry.ts.
 */
import { useEffect, useRef, useState, type CSSProperties, type ReactNode, type RefObject } from 'react';
import { Link } from 'react-router';
import { statusLook } from '../../lib/status.ts';
import { absolute, duration } from '../../lib/time.ts';
import { elapsed, timeline, type Bar, type Row, type TimelineStep } from './geometry.ts';
import './timeline.css';

interface TimelineProps {
  readonly steps: readonly TimelineStep[];
  /** Where a step's name leads: its log. */
  readonly stepHref: (step: TimelineStep) => string;
  /** A step is running: bars grow with the clock. */
  readonly live: boolean;
  /** Tests and screenshots fix the clock. */
  readonly now?: number;
}

/** The time, every second while `live`; otherwise fixed at the last render's. */
function useLiveNow(live: boolean): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    if (!live) return undefined;
    const timer = setInterval(() => {
      setNow(Date.now());
    }, 1_000);
    return () => {
      clearInterval(timer);
    };
  }, [live]);
  return now;
}

/** A tick label needs about this much room; the axis gets as many ticks as fit. */
const TICK_PX = 100;

/** How many ticks fit in the element's width, following its resizes. */
function useTickRoom(element: RefObject<HTMLElement | null>): number {
  const [most, setMost] = useState(6);
  useEffect(() => {
    const target = element.current;
    if (target === null) return undefined;
    const observer = new ResizeObserver(([entry]) => {
      const width = entry?.contentRect.width ?? 0;
      setMost(Math.max(1, Math.min(8, Math.floor(width / TICK_PX))));
    });
    observer.observe(target);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return most;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

function barTitle(row: Row, bar: Bar): string {
  const which =
    bar.attempt === undefined || row.bars.length === 1 ? row.name : `${row.name}, attempt ${String(bar.attempt + 1)}`;
  const exit = bar.exitCode === undefined ? '' : `, exit code ${String(bar.exitCode)}`;
  return `${which}: ${statusLook(bar.statusLabel).text.toLowerCase()}${exit}\n${absolute(bar.start)} · ${elapsed(bar.end - bar.start)}${bar.running ? ' so far' : ''}`;
}

function Marks({ row }: { readonly row: Row }): ReactNode {
  return (
    <>
      {row.retries > 0 ? (
        <span className="tl-mark" title={`Retried ${String(row.retries)} ${row.retries === 1 ? 'time' : 'times'}`}>
          ↻{row.retries}
        </span>
      ) : null}
      {row.runs > 1 ? (
        <span className="tl-mark" title={`Ran ${String(row.runs)} times (repeat)`}>
          ×{row.runs}
        </span>
      ) : null}
    </>
  );
}

/** What the bars say, for people who cannot see them. */
function rowSummary(row: Row): string {
  if (row.bars.length === 0) return `${statusLook(row.statusLabel).text}, not run`;
  const parts = [
    statusLook(row.statusLabel).text,
    `started ${absolute(row.bars[0]?.start ?? 0)}`,
    `took ${elapsed(row.took ?? 0)}`,
  ];
  if (row.bars.length > 1) parts.push(`${String(row.bars.length)} attempts`);
  if (row.hiddenAttempts > 0) parts.push(`${String(row.hiddenAttempts)} earlier attempts not shown`);
  return parts.join(', ');
}

function TimelineRow({
  row,
  step,
  href,
}: {
  readonly row: Row;
  readonly step: TimelineStep;
  readonly href: string;
}): ReactNode {
  return (
    <li className={`tl-row${row.handler ? ' tl-handler' : ''}`}>
      <div className="tl-name">
        <Link to={href} title={`${row.name}: open the log`}>
          {row.name}
        </Link>
        <Marks row={row} />
        <span className="visually-hidden">: {rowSummary(row)}</span>
      </div>
      <div className="tl-track" aria-hidden="true">
        {row.hiddenAttempts > 0 ? (
          <span className="tl-hidden" title={`${String(row.hiddenAttempts)} earlier attempts are not recorded`} />
        ) : null}
        {row.bars.map((bar) => (
          <span
            key={`${String(bar.attempt ?? 0)}-${String(bar.start)}`}
            className={`tl-bar${bar.running ? ' tl-running' : ''}`}
            data-tone={statusLook(bar.statusLabel).tone}
            style={{ left: `${String(bar.left * 100)}%`, width: `${String(bar.width * 100)}%` }}
            title={barTitle(row, bar)}
          />
        ))}
        {row.bars.length === 0 ? (
          <span className="tl-none">{step.statusLabel === 'skipped' ? 'skipped' : 'not run'}</span>
        ) : null}
      </div>
      <div className="tl-took" aria-hidden="true">
        {row.took === undefined ? '' : elapsed(row.took)}
      </div>
    </li>
  );
}

export function Timeline({ steps, stepHref, live, now: fixedNow }: TimelineProps): ReactNode {
  const liveNow = useLiveNow(live && fixedNow === undefined);
  const axis = useRef<HTMLDivElement>(null);
  const chart = timeline(steps, fixedNow ?? liveNow, useTickRoom(axis));
  const span = chart.end - chart.start;
  const tick = chart.ticks[1]?.left;
  // Grid lines at every tick, drawn by each track's background.
  const grid = { '--tl-tick': tick === undefined ? '100%' : `${String(tick * 100)}%` } as CSSProperties;
  return (
    <figure className="timeline" style={grid}>
      <figcaption className="visually-hidden">
        Timeline of the steps, from {absolute(chart.start)} over {duration(span)}
      </figcaption>
      <div className="tl-axis" aria-hidden="true">
        <div />
        <div className="tl-ticks" ref={axis}>
          {chart.ticks.map((t, index) => (
            <span key={t.offset} className="tl-tick" style={{ left: `${String(t.left * 100)}%` }}>
              {index === 0 ? clock.format(chart.start) : `+${duration(t.offset)}`}
            </span>
          ))}
        </div>
        <div />
      </div>
      <ol className="tl-rows">
        {chart.rows.map((row, index) => {
          const step = steps[index] as TimelineStep;
          return (
            <TimelineRow key={`${row.handler ? 'h' : 's'}-${row.name}`} row={row} step={step} href={stepHref(step)} />
          );
        })}
      </ol>
    </figure>
  );
}
