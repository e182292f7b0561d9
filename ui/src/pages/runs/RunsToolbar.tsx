/**
 * Filters above the runs list: status, part of a DAG name, part of a run id (both sent once
 * typing pauses; `/` focuses the name), and the period. All end up in the URL.
 */
import { useRef, type ReactNode } from 'react';
import { Icon } from '../../components/Icon.tsx';
import { useSlashFocus, useTypedText } from '../../components/filter-hooks.ts';
import { PeriodPicker } from './PeriodPicker.tsx';
import { RUNS_DEFAULTS, STATUS_FILTERS, type RunsParams } from './run-params.ts';

export function RunsToolbar({
  params,
  onChange,
}: {
  readonly params: RunsParams;
  readonly onChange: (change: Partial<RunsParams>) => void;
}): ReactNode {
  const nameInput = useRef<HTMLInputElement>(null);
  const [name, setName] = useTypedText(params.name, (value) => {
    onChange({ name: value });
  });
  const [dagRunId, setDagRunId] = useTypedText(params.dagRunId, (value) => {
    onChange({ dagRunId: value });
  });
  useSlashFocus(nameInput);
  const filtered =
    params.status !== undefined ||
    params.name !== '' ||
    params.dagRunId !== '' ||
    params.period !== RUNS_DEFAULTS.period;
  return (
    <div className="toolbar runs-toolbar" role="search" aria-label="Filter runs">
      <label className="search-box">
        <Icon name="search" />
        <span className="visually-hidden">DAG name</span>
        <input
          ref={nameInput}
          type="search"
          placeholder="DAG name"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
          }}
          aria-keyshortcuts="/"
        />
        <kbd aria-hidden="true">/</kbd>
      </label>
      <label className="search-box run-id-box">
        <span className="visually-hidden">Run id</span>
        <input
          type="search"
          placeholder="Run id"
          className="mono"
          value={dagRunId}
          onChange={(event) => {
            setDagRunId(event.target.value);
          }}
        />
      </label>
      <StatusSelect
        status={params.status}
        onStatus={(status) => {
          onChange({ status });
        }}
      />
      <PeriodPicker
        value={params.period}
        onChange={(period) => {
          onChange({ period });
        }}
      />
      {filtered ? (
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            setName('');
            setDagRunId('');
            onChange(RUNS_DEFAULTS);
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}

function StatusSelect({
  status,
  onStatus,
}: {
  readonly status: number | undefined;
  readonly onStatus: (status: number | undefined) => void;
}): ReactNode {
  return (
    <label className="tag-filter">
      <span className="visually-hidden">Status</span>
      <select
        className="select"
        value={status ?? ''}
        onChange={(event) => {
          onStatus(event.target.value === '' ? undefined : Number(event.target.value));
        }}
      >
        <option value="">Every status</option>
        {STATUS_FILTERS.map((s) => (
          <option key={s.status} value={s.status}>
            {s.text}
          </option>
        ))}
      </select>
    </label>
  );
}
