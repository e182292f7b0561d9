/**
 * Table rows drawn only while on screen (TanStack Virtual, scrolled by the window), so a table
 * of 10,000 rows costs a screenful of them. Rows between the top and the first drawn row, and
 * after the last, are spacer rows of the right height; the table says with aria-rowcount and
 * aria-rowindex where each drawn row sits in the whole list. Rows are measured once drawn, so
 * they may differ in height (a step with outputs or an error is taller).
 */
import { useWindowVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import { useLayoutEffect, useState, type ReactNode, type RefObject } from 'react';

/** Rows drawn beyond each edge of the screen: a Tab or a short scroll finds them ready. */
const OVERSCAN = 8;

/** Where the list starts on the page, for the window scroll to be read against. */
function usePageTop(element: RefObject<HTMLElement | null>): number {
  const [top, setTop] = useState(0);
  useLayoutEffect(() => {
    const measure = (): void => {
      const box = element.current?.getBoundingClientRect();
      if (box !== undefined) setTop(box.top + window.scrollY);
    };
    measure();
    // Anything above the table growing or shrinking (a graph drawn, a banner) moves its top.
    const observer = new ResizeObserver(measure);
    observer.observe(document.body);
    return () => {
      observer.disconnect();
    };
  }, [element]);
  return top;
}

export interface WindowRows {
  readonly items: readonly VirtualItem[];
  /** Heights of the spacer rows before the first drawn row and after the last. */
  readonly before: number;
  readonly after: number;
  /** For each drawn row's ref, with its data-index set: measures it. */
  readonly measure: (row: HTMLTableRowElement | null) => void;
}

/**
 * The rows of `count` to draw now, in the table body `body` (where the rows start on the page).
 * `estimate` is a row's height before it is drawn (a wide screen's usual row), so the list's
 * length is about right before every row was seen.
 */
export function useWindowRows(
  body: RefObject<HTMLTableSectionElement | null>,
  count: number,
  estimate: number,
  key: (index: number) => string,
): WindowRows {
  const scrollMargin = usePageTop(body);
  const virtualizer = useWindowVirtualizer({
    count,
    estimateSize: () => estimate,
    overscan: OVERSCAN,
    scrollMargin,
    getItemKey: key,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0];
  const last = items.at(-1);
  return {
    items,
    before: first === undefined ? 0 : first.start - scrollMargin,
    after: last === undefined ? 0 : virtualizer.getTotalSize() - (last.end - scrollMargin),
    measure: virtualizer.measureElement,
  };
}

export function SpacerRow({ height, columns }: { readonly height: number; readonly columns: number }): ReactNode {
  if (height <= 0) return null;
  return (
    <tr className="spacer-row" aria-hidden="true" style={{ height }}>
      <td colSpan={columns} />
    </tr>
  );
}
