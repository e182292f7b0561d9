/**
 * Filters whose text reaches the URL once typing pauses, and `/` to focus them from anywhere on
 * the page: the DAG list's search, the runs filters, the search page.
 */
import { useEffect, useEffectEvent, useState, type RefObject } from 'react';

const TYPING_PAUSE_MS = 250;

/** The box's text: the user's while they type, the URL's when it changes otherwise (Back). */
export function useTypedText(committed: string, commit: (text: string) => void): [string, (text: string) => void] {
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

/** `/` anywhere on the page (outside a field) focuses the input. */
export function useSlashFocus(input: RefObject<HTMLInputElement | null>): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const target = event.target as HTMLElement | null;
      const typing =
        target !== null && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
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
