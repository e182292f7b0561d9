/**
 * What `make dev` says when one of its components ends on its own: one line with the exit
 * code or signal, the last line of its log that says something, and where the whole log is.
 * Pure: the caller reads the log's tail.
 */

/** Colour codes pino-pretty or klog may have written. */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

/**
 * Lines that carry nothing by themselves: stack frames, Node's version trailer, a caret
 * marker, braces, and the indented fields pino-pretty writes under each message.
 */
const NOISE = [/^\s*at\s/, /^Node\.js v\d/, /^\s*\^+\s*$/, /^\s*[{}[\]()]+,?\s*$/, /^\s*$/, /^ {4}[\w.-]+: /];

/**
 * Lines that say something went wrong: pino-pretty's ERROR and FATAL, pino's JSON levels 50
 * and 60, klog's E and F lines (E1124 12:00:00.000000 ...), Go panics, Node's uncaught errors.
 */
const ALARMING = [/\b(ERROR|FATAL)\b/, /"level":\s*(50|60)\b/, /^[EF]\d{4} /, /^panic:/, /^\w*Error\b/, /^Error:/];

const LONGEST = 240;

/** The lines of a log's tail that count, newest last, without colour. */
function meaningful(tail: string): string[] {
  return tail
    .replace(ANSI, '')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => !NOISE.some((noise) => noise.test(line)));
}

/**
 * The line that best says why a component ended: the last alarming line of its log's tail if
 * there is one, else its last line that says anything; undefined for an empty log.
 */
export function lastMeaningfulLine(tail: string): string | undefined {
  const lines = meaningful(tail);
  const line = lines.findLast((l) => ALARMING.some((alarm) => alarm.test(l))) ?? lines.at(-1);
  if (line === undefined) return undefined;
  const trimmed = line.trim();
  return trimmed.length > LONGEST ? `${trimmed.slice(0, LONGEST - 3)}...` : trimmed;
}

export interface Ending {
  readonly name: string;
  /** Null when killed by a signal, or unknown (a process this run did not start). */
  readonly code: number | null;
  readonly signal: string | null;
  readonly log: string;
  /** What lastMeaningfulLine found in the log. */
  readonly lastLine?: string;
  /** When it is started again (dev-restart.ts): its restart number and the wait before it. */
  readonly restart?: { readonly count: number; readonly delayMs: number };
}

/** One line: `operator exited with code 1; last log line: "..." (log: /x/operator.log); restart 1 in 1 s`. */
export function endingReport(ending: Ending): string {
  const how =
    ending.signal !== null
      ? `was killed by ${ending.signal}`
      : ending.code !== null
        ? `exited with code ${String(ending.code)}`
        : 'is not running any more';
  const said = ending.lastLine === undefined ? 'its log is empty' : `last log line: ${JSON.stringify(ending.lastLine)}`;
  const again =
    ending.restart === undefined
      ? ''
      : `; restart ${String(ending.restart.count)} in ${String(Math.round(ending.restart.delayMs / 1000))} s`;
  return `${ending.name} ${how}; ${said} (log: ${ending.log})${again}`;
}
