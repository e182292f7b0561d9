/**
 * Filters above the DAG list: a name search (sent once typing pauses, `/` focuses it from
 * anywhere on the page) and a tag. Both end up in the URL through `onChange`.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useRef, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { dagTagsQuery } from '../../api/queries.ts';
import { Icon } from '../../components/Icon.tsx';

const TYPING_PAUSE_MS = 250;

interface ToolbarProps {
  readonly search: string;
  readonly tag: string;
  readonly onChange: (change: { search?: string; tag?: string }) => void;
}

/** The search box's text: the user's while they type, the URL's when it changes otherwise (back). */
function useSearchText(committed: string, commit: (text: string) => void): [string, (text: string) => void] {
  const [text, setText] = useState(committed);
  const [seen, setSeen] = useState(committed);
  if (committed !== seen) {
    setSeen(committed);
    setText(committed);
  }
  const onPause = useEffectEvent(commit);
  useEffect(() => {
    if (text === committed) return undefined;
    const timer = setTimeout(() => {
      onPause(text);
    }, TYPING_PAUSE_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [text, committed]);
  return [text, setText];
}

function useSlashFocus(input: React.RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const typing = target !== null && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
      if (event.key !== '/' || typing || event.ctrlKey || event.metaKey || event.altKey) return;
      event.preventDefault();
      input.current?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
    };
  }, [input]);
}

export function DagToolbar({ search, tag, onChange }: ToolbarProps): ReactNode {
  const client = useApi();
  const tags = useQuery(dagTagsQuery(client));
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useSearchText(search, (value) => { onChange({ search: value }); });
  useSlashFocus(input);
  const known = tags.data?.tags ?? [];
  // A tag from the URL that no DAG has (any more) stays selectable, so the select tells the truth.
  const options = tag === '' || known.includes(tag) ? known : [tag, ...known];
  return (
    <div className="toolbar" role="search">
      <label className="search-box">
        <Icon name="search" />
        <span className="visually-hidden">Filter DAGs by name</span>
        <input ref={input} type="search" placeholder="Filter by name" value={text} onChange={(event) => { setText(event.target.value); }} aria-keyshortcuts="/" />
        <kbd aria-hidden="true">/</kbd>
      </label>
      <label className="tag-filter">
        <Icon name="tag" />
        <span className="visually-hidden">Tag</span>
        <select className="select" value={tag} onChange={(event) => { onChange({ tag: event.target.value }); }}>
          <option value="">All tags</option>
          {options.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </label>
      {search !== '' || tag !== '' ? (
        <button type="button" className="button button-quiet" onClick={() => { setText(''); onChange({ search: '', tag: '' }); }}>
          Clear filters
        </button>
      ) : null}
    </div>
  );
}
