/**
 * The spec's problems as it is typed: the browser's schema check once typing pauses briefly,
 * the server's validate endpoint once it pauses longer (spec-lint.ts merges the two), and the
 * list under the editor, each problem a button that puts the cursor on its line.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { useApi } from '../../api/context.tsx';
import { dagActions } from '../../api/dag-queries.ts';
import { Icon } from '../../components/Icon.tsx';
import { parseSpec, schemaProblems, serverProblems, shownProblems, type Problem } from './spec-lint.ts';

const LOCAL_PAUSE_MS = 120;
const SERVER_PAUSE_MS = 500;

/** `value`, once it has stayed the same for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSettled(value);
    }, ms);
    return () => {
      clearTimeout(timer);
    };
  }, [value, ms]);
  return settled;
}

export interface Checked {
  readonly problems: Problem[];
  /** The text the problems were found in: the current one, or one typed a moment ago. */
  readonly text: string;
  readonly checking: boolean;
}

/** The problems of `text`: the browser's at once, the server's when it has answered for this text. */
export function useProblems(fileName: string, text: string): Checked {
  const client = useApi();
  const local = useSettled(text, LOCAL_PAUSE_MS);
  const asked = useSettled(text, SERVER_PAUSE_MS);
  const localProblems = useMemo(() => schemaProblems(parseSpec(local)), [local]);
  const server = useQuery({
    queryKey: ['dags', 'validate', fileName, asked],
    queryFn: ({ signal }) => dagActions(client).validate(asked, fileName, signal),
    staleTime: Infinity,
    gcTime: 30_000,
    retry: false,
  });
  const errors = asked === text ? server.data?.errors : undefined;
  const answered = errors !== undefined;
  const fromServer = useMemo(
    () => (errors === undefined ? undefined : serverProblems(parseSpec(asked), errors)),
    [errors, asked],
  );
  return {
    problems: shownProblems(localProblems, fromServer),
    text: answered ? asked : local,
    checking: !answered && !server.isError,
  };
}

export function ProblemList({
  problems,
  checking,
  onPick,
}: {
  readonly problems: readonly Problem[];
  readonly checking: boolean;
  readonly onPick: (problem: Problem) => void;
}): ReactNode {
  const summary =
    problems.length === 0
      ? checking
        ? 'Checking…'
        : 'No problems found'
      : problems.length === 1
        ? '1 problem'
        : `${String(problems.length)} problems`;
  return (
    <section className="problems" aria-label="Problems">
      <p
        className={`problems-summary${problems.length > 0 ? ' problems-bad' : checking ? '' : ' problems-good'}`}
        role="status"
      >
        <Icon name={problems.length > 0 ? 'alert' : checking ? 'clock' : 'check'} size={14} />
        {summary}
      </p>
      {problems.length === 0 ? null : (
        <ul className="problem-list">
          {problems.map((problem) => (
            <li key={`${String(problem.from)}:${problem.message}`}>
              <button
                type="button"
                className="problem-line"
                onClick={() => {
                  onPick(problem);
                }}
              >
                Line {problem.line}
              </button>
              <span className="problem-message">{problem.message}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
