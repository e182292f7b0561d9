/**
 * Search over DAG specs: the query is in the URL (`/search?q=`), sent once typing pauses; each
 * DAG that matches links to its page, with its matching lines numbered and highlighted
 * among one line of context either side.
 */
import { useQuery } from '@tanstack/react-query';
import { useRef, type ReactNode } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useApi } from '../../api/context.tsx';
import { Icon } from '../../components/Icon.tsx';
import { links } from '../../lib/links.ts';
import { useSlashFocus, useTypedText } from '../../components/filter-hooks.ts';
import { QueryState } from '../runs/common.tsx';
import { searchPattern, snippets } from './highlight.ts';
import { searchQuery, type SearchResult } from './queries.ts';
import '../runs/panels.css';
import './search.css';

function Snippets({ result, pattern }: { readonly result: SearchResult; readonly pattern: RegExp }): ReactNode {
  return snippets(result.matches, pattern).map((lines) => (
    <pre key={lines[0]?.number} className="snippet">
      <code>
        {lines.map((line) => (
          <span key={line.number} className={`snippet-line ${line.matched ? 'snippet-match' : ''}`}>
            <span className="snippet-number" aria-hidden="true">
              {line.number}
            </span>
            <span className="visually-hidden">
              {line.matched ? `Line ${String(line.number)}, matches: ` : `Line ${String(line.number)}: `}
            </span>
            {line.parts.map((part, index) =>
              part.hit ? <mark key={index}>{part.text}</mark> : <span key={index}>{part.text}</span>,
            )}
            {'\n'}
          </span>
        ))}
      </code>
    </pre>
  ));
}

function Result({ result, pattern }: { readonly result: SearchResult; readonly pattern: RegExp }): ReactNode {
  const titleId = `result-${result.name}`;
  const lines = result.matches.length;
  return (
    <li>
      <article className="card panel search-result" aria-labelledby={titleId}>
        <div className="panel-head">
          <h2 id={titleId}>
            <Link to={links.dag(result.name)}>{result.name}</Link>
          </h2>
          <span className="muted">
            {lines} matching {lines === 1 ? 'line' : 'lines'}
          </span>
        </div>
        {result.dag.description === '' ? null : <p className="muted">{result.dag.description}</p>}
        <Snippets result={result} pattern={pattern} />
      </article>
    </li>
  );
}

function Results({ q }: { readonly q: string }): ReactNode {
  const client = useApi();
  const search = useQuery(searchQuery(client, q));
  const pattern = searchPattern(q);
  return (
    <QueryState query={search} what="the search results" rows={3}>
      {() => {
        const results = search.data?.results ?? [];
        const lines = results.reduce((n, r) => n + r.matches.length, 0);
        if (results.length === 0) {
          return (
            <div className="card empty" role="status">
              <p>No DAG spec matches “{q}”.</p>
            </div>
          );
        }
        return (
          <>
            <p className="list-count" role="status">
              {results.length} {results.length === 1 ? 'DAG' : 'DAGs'}, {lines} matching{' '}
              {lines === 1 ? 'line' : 'lines'}
            </p>
            <ol className="search-results">
              {results.map((result) => (
                <Result key={result.name} result={result} pattern={pattern} />
              ))}
            </ol>
          </>
        );
      }}
    </QueryState>
  );
}

export function SearchPage(): ReactNode {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const input = useRef<HTMLInputElement>(null);
  // Typing replaces the history entry: Back leaves the search rather than stepping through letters.
  const [text, setText] = useTypedText(q, (value) => {
    setParams(value === '' ? {} : { q: value }, { replace: true });
  });
  useSlashFocus(input);
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Search</h1>
          <p className="page-summary">
            Search the specs of every DAG. The query is a regular expression, case-insensitive.
          </p>
        </div>
      </header>
      <form
        className="toolbar"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setParams(text === '' ? {} : { q: text }, { replace: true });
        }}
      >
        <label className="search-box search-page-box">
          <Icon name="search" />
          <span className="visually-hidden">Search DAG specs</span>
          <input
            ref={input}
            type="search"
            placeholder="e.g. image: alpine, sleep \d+"
            value={text}
            onChange={(event) => {
              setText(event.target.value);
            }}
            aria-keyshortcuts="/"
            autoFocus={q === ''}
          />
          <kbd aria-hidden="true">/</kbd>
        </label>
      </form>
      {q === '' ? (
        <div className="card empty">
          <p>Type to search every DAG’s spec: step commands, images, schedules, anything in the YAML.</p>
        </div>
      ) : (
        <Results q={q} />
      )}
    </div>
  );
}
