/** Page controls under a list: where we are, how many per page, and the pages to go to. */
import type { ReactNode } from 'react';
import { Icon } from './Icon.tsx';
import { pageItems } from './pages.ts';

interface PagerProps {
  readonly page: number;
  readonly totalPages: number;
  readonly totalRecords: number;
  readonly perPage: number;
  /** The page sizes offered; without them (or `onPerPage`) the size is fixed. */
  readonly perPageChoices?: readonly number[];
  /** What the records are, plural: "DAGs". */
  readonly noun: string;
  readonly onPage: (page: number) => void;
  readonly onPerPage?: (perPage: number) => void;
  /** The navigation's name; a page with two pagers names each ("Pages of runs"). */
  readonly label?: string;
}

const count = new Intl.NumberFormat('en');

// eslint-disable-next-line max-lines-per-function -- longer since Prettier's layout; split pending (issue 27)
export function Pager({
  page,
  totalPages,
  totalRecords,
  perPage,
  perPageChoices = [],
  noun,
  onPage,
  onPerPage,
  label = 'Pages',
}: PagerProps): ReactNode {
  const first = totalRecords === 0 ? 0 : (page - 1) * perPage + 1;
  const last = Math.min(page * perPage, totalRecords);
  return (
    <nav className="pager" aria-label={label}>
      <p className="pager-range">
        {count.format(first)}–{count.format(last)} of {count.format(totalRecords)} {noun}
      </p>
      {onPerPage === undefined || perPageChoices.length === 0 ? null : (
        <label className="pager-size">
          <span>Per page</span>
          <select
            className="select"
            value={perPage}
            onChange={(event) => {
              onPerPage(Number(event.target.value));
            }}
          >
            {perPageChoices.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </select>
        </label>
      )}
      <ol className="pager-pages">
        <li>
          <button
            type="button"
            className="button button-quiet pager-step"
            disabled={page <= 1}
            onClick={() => {
              onPage(page - 1);
            }}
          >
            <Icon name="chevronLeft" label="Previous page" />
          </button>
        </li>
        {pageItems(page, totalPages).map((item, index) =>
          item === 'gap' ? (
            <li key={`gap-${String(index)}`} className="pager-gap" aria-hidden="true">
              …
            </li>
          ) : (
            <li key={item}>
              <button
                type="button"
                className="button button-quiet pager-page"
                aria-current={item === page ? 'page' : undefined}
                aria-label={`Page ${String(item)}`}
                onClick={() => {
                  onPage(item);
                }}
              >
                {item}
              </button>
            </li>
          ),
        )}
        <li>
          <button
            type="button"
            className="button button-quiet pager-step"
            disabled={page >= totalPages}
            onClick={() => {
              onPage(page + 1);
            }}
          >
            <Icon name="chevronRight" label="Next page" />
          </button>
        </li>
      </ol>
    </nav>
  );
}
