/**
 * Filters above the DAG list: a name search (sent once typing pauses, `/` focuses it from
 * anywhere on the page) and a tag. Both end up in the URL through `onChange`.
 */
import { useQuery } from '@tanstack/react-query';
import { useRef, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { dagTagsQuery } from '../../api/queries.ts';
import { useSlashFocus, useTypedText } from '../../components/filter-hooks.ts';
import { Icon } from '../../components/Icon.tsx';

interface ToolbarProps {
  readonly search: string;
  readonly tag: string;
  readonly onChange: (change: { search?: string; tag?: string }) => void;
}

export function DagToolbar({ search, tag, onChange }: ToolbarProps): ReactNode {
  const client = useApi();
  const tags = useQuery(dagTagsQuery(client));
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useTypedText(search, (value) => {
    onChange({ search: value });
  });
  useSlashFocus(input);
  const known = tags.data?.tags ?? [];
  // A tag from the URL that no DAG has (any more) stays selectable, so the select tells the truth.
  const options = tag === '' || known.includes(tag) ? known : [tag, ...known];
  return (
    <div className="toolbar" role="search">
      <label className="search-box">
        <Icon name="search" />
        <span className="visually-hidden">Filter DAGs by name</span>
        <input
          ref={input}
          type="search"
          placeholder="Filter by name"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
          aria-keyshortcuts="/"
        />
        <kbd aria-hidden="true">/</kbd>
      </label>
      <label className="tag-filter">
        <Icon name="tag" />
        <span className="visually-hidden">Tag</span>
        <select
          className="select"
          value={tag}
          onChange={(event) => {
            onChange({ tag: event.target.value });
          }}
        >
          <option value="">All tags</option>
          {options.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {search !== '' || tag !== '' ? (
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            setText('');
            onChange({ search: '', tag: '' });
          }}
        >
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
