/**
 * Splits a one-line command into words the way a POSIX shell reads quoting, without
 * expanding anything: `echo "a b" 'c'` is `echo`, `a b`, `c`. Backtick spans and `${...}`
 * stay inside their word untouched, for the runtime to resolve.
 */
export function splitCommand(line: string): { words: string[]; error?: string } {
  const { words, error } = splitWords(line);
  return { words: words.map((w) => w.text), ...(error === undefined ? {} : { error }) };
}

export interface Word {
  /** The word with quoting removed. */
  readonly text: string;
  /** The word as written, quotes included. */
  readonly raw: string;
}

/** Like splitCommand, keeping each word's original spelling too. */
export function splitWords(line: string): { words: Word[]; error?: string } {
  const words: Word[] = [];
  // `start` is the index where the current word began, or -1 between words.
  const current = { text: '', start: -1 };
  const take = (text: string, at: number): void => {
    if (current.start === -1) current.start = at;
    current.text += text;
  };
  const finish = (end: number): void => {
    if (current.start !== -1) words.push({ text: current.text, raw: line.slice(current.start, end) });
    current.text = '';
    current.start = -1;
  };
  let i = 0;
  while (i < line.length) {
    const ch = line.charAt(i);
    if (/\s/.test(ch)) {
      finish(i);
      i += 1;
    } else if (ch === "'" || ch === '"' || ch === '`') {
      const end = closingQuote(line, i);
      if (end === -1) return { words, error: `unterminated ${ch === '`' ? 'backtick' : 'quote'} ${ch} in command` };
      const body = line.slice(i + 1, end);
      take(ch === '"' ? body.replace(/\\([\\"$`])/g, '$1') : ch === '`' ? line.slice(i, end + 1) : body, i);
      i = end + 1;
    } else if (ch === '\\' && i + 1 < line.length) {
      take(line.charAt(i + 1), i);
      i += 2;
    } else {
      take(ch, i);
      i += 1;
    }
  }
  finish(line.length);
  return { words };
}

/** Index of the quote that closes the one at `start`, honouring backslash escapes where the shell does. */
function closingQuote(line: string, start: number): number {
  const quote = line.charAt(start);
  for (let i = start + 1; i < line.length; i += 1) {
    const ch = line.charAt(i);
    if (ch === '\\' && quote !== "'") i += 1;
    else if (ch === quote) return i;
  }
  return -1;
}

/** Quotes a word for a POSIX shell only when it needs it, so that rebuilt lines stay readable. */
export function quoteWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
