/**
 * The lines of a log window, virtualised with TanStack Virtual: only the rows in sight (and a
 * margin) are in the DOM, so 50,000 lines scroll as smoothly as 50. Line numbers are those of
 * the whole log and are not selected with the text. While following, new lines scroll into
 * view unless the reader scrolled up; scrolling back to the end follows again.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
import { displayLine, type LogLines } from './paging.ts';

/** Row height without wrapping; rows that wrap are measured. Matches .log-line in logs.css. */
export const LINE_PX = 20;

interface LinesProps {
  readonly view: LogLines;
  readonly label: string;
  readonly wrap: boolean;
  /** Keep the end in view as lines arrive. */
  readonly following: boolean;
  /** Called when the reader scrolls away from the end (false) or back to it (true). */
  readonly onAtEnd: (atEnd: boolean) => void;
  /** Where to be when a new window is shown; changes of `windowId` trigger it. */
  readonly landing: 'top' | 'bottom';
  readonly windowId: string;
}

function atEnd(element: HTMLElement): boolean {
  return element.scrollHeight - element.scrollTop - element.clientHeight <= LINE_PX;
}

export function LogLinesView({ view, label, wrap, following, onAtEnd, landing, windowId }: LinesProps): ReactNode {
  const scroller = useRef<HTMLDivElement>(null);
  const count = view.lines.length;
  // The virtualiser's functions change with its state, which React Compiler cannot memoise;
  // this component is left uncompiled, which is what it needs.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtual = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => LINE_PX,
    overscan: 40,
  });
  const lastNumber = view.first + count - 1;
  // Re-measure when wrapping changes: every row's height may have.
  useEffect(() => {
    virtual.measure();
  }, [wrap, virtual]);
  // A new window lands at its top or bottom; a followed one stays at the end as it grows.
  useLayoutEffect(() => {
    if (count > 0)
      virtual.scrollToIndex(landing === 'bottom' ? count - 1 : 0, { align: landing === 'bottom' ? 'end' : 'start' });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new window moves the reader
  }, [windowId]);
  useLayoutEffect(() => {
    if (following && count > 0) virtual.scrollToIndex(count - 1, { align: 'end' });
  }, [following, count, view.first, virtual]);
  const gutter = `${String(String(Math.max(lastNumber, 1)).length + 1)}ch`;
  return (
    <div
      ref={scroller}
      className={`log-scroller${wrap ? ' log-wrap' : ''}`}
      tabIndex={0}
      role="region"
      aria-label={label}
      onScroll={(event) => {
        onAtEnd(atEnd(event.currentTarget));
      }}
    >
      <div className="log-sheet" style={{ height: virtual.getTotalSize() }}>
        {virtual.getVirtualItems().map((item) => (
          <div
            key={item.key}
            data-index={item.index}
            ref={wrap ? virtual.measureElement : undefined}
            className="log-line"
            style={{ transform: `translateY(${String(item.start)}px)` }}
          >
            <span className="log-no" style={{ width: gutter }} aria-hidden="true">
              {view.first + item.index}
            </span>
            <span className="log-text">{displayLine(view.lines[item.index] ?? '')}</span>
          </div>
        ))}
      </div>
    </div>
  );
}
