/**
 * Above a big run's steps table: part of a step's name (sent once typing pauses; `/` focuses
 * it) and a status with its count, and how many steps match. The browser's find cannot reach
 * rows that are not drawn, so this is how one finds a step among thousands.
 */
import { useRef, type ReactNode } from 'react';
import { Icon } from '../../components/Icon.tsx';
import { useSlashFocus, useTypedText } from '../../components/filter-hooks.ts';
import { statusLook } from '../../lib/status.ts';
import { isFiltered, NO_FILTER, type StepFilter } from './step-filter.ts';
import type { StatusGroup } from '../../components/graph/big-graph.ts';

const count = new Intl.NumberFormat('en');

interface StepFilterBarProps {
  readonly filter: StepFilter;
  readonly choices: readonly StatusGroup[];
  readonly shown: number;
  readonly total: number;
  readonly onChange: (filter: StepFilter) => void;
}

export function StepFilterBar({ filter, choices, shown, total, onChange }: StepFilterBarProps): ReactNode {
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useTypedText(filter.text, (value) => {
    onChange({ ...filter, text: value });
  });
  useSlashFocus(input);
  return (
    <div className="toolbar step-filter" role="search" aria-label="Find steps">
      <label className="search-box">
        <Icon name="search" />
        <span className="visually-hidden">Step name</span>
        <input
          ref={input}
          type="search"
          placeholder="Step name"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
          aria-keyshortcuts="/"
        />
        <kbd aria-hidden="true">/</kbd>
      </label>
      <label className="tag-filter">
        <span className="visually-hidden">Step status</span>
        <select
          className="select"
          value={filter.status}
          onChange={(event) => {
            onChange({ ...filter, status: event.target.value });
          }}
        >
          <option value="">Every status ({count.format(total)})</option>
          {choices.map((choice) => (
            <option key={choice.status} value={choice.status}>
              {statusLook(choice.status).text} ({count.format(choice.count)})
            </option>
          ))}
        </select>
      </label>
      <p className="step-filter-count" role="status">
        {isFiltered(filter) ? `${count.format(shown)} of ${count.format(total)} steps` : `${count.format(total)} steps`}
      </p>
      {isFiltered(filter) ? (
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            setText('');
            onChange(NO_FILTER);
          }}
        >
          Show every step
        </button>
      ) : null}
    </div>
  );
}
