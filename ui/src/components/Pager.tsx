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
        <PerPage perPage={perPage} choices={perPageChoices} onPerPage={onPerPage} />
      )}
      <PageList page={page} totalPages={totalPages} onPage={onPage} />
    </nav>
  );
}

function PerPage({
  perPage,
  choices,
  onPerPage,
}: {
  readonly perPage: number;
  readonly choices: readonly number[];
  readonly onPerPage: (perPage: number) => void;
}): ReactNode {
  return (
    <label className="pager-size">
      <span>Per page</span>
      <select
        className="select"
        value={perPage}
        onChange={(event) => {
          onPerPage(Number(event.target.value));
        }}
      >
        {choices.map((choice) => (
          <option key={choice} value={choice}>
            {choice}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Previous, the pages (with gaps where many are left out), next. */
function PageList({
  page,
  totalPages,
  onPage,
}: {
  readonly page: number;
  readonly totalPages: number;
  readonly onPage: (page: number) => void;
}): ReactNode {
  return (
    <ol className="pager-pages">
      <li>
        <StepButton
          disabled={page <= 1}
          icon="chevronLeft"
          label="Previous page"
          onClick={() => {
            onPage(page - 1);
          }}
        />
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
        <StepButton
          disabled={page >= totalPages}
          icon="chevronRight"
          label="Next page"
          onClick={() => {
            onPage(page + 1);
          }}
        />
      </li>
    </ol>
  );
}

function StepButton({
  disabled,
  icon,
  label,
  onClick,
}: {
  readonly disabled: boolean;
  readonly icon: 'chevronLeft' | 'chevronRight';
  readonly label: string;
  readonly onClick: () => void;
}): ReactNode {
  return (
    <button type="button" className="button button-quiet pager-step" disabled={disabled} onClick={onClick}>
      <Icon name={icon} label={label} />
    </button>
  );
}
