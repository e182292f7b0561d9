/**
 * What a schemathesis run did, from its NDJSON event report: per phase, test cases (the
 * requests of each finished scenario) and scenarios; per operation, how many answers of each
 * status class it got (whether the fuzzer got past 404 to the operation's work). The console
 * shows only totals.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface PhaseFigures {
  readonly scenarios: number;
  readonly cases: number;
}

interface Recorded {
  readonly phase: string;
  readonly recorder?: {
    readonly cases?: Record<string, { value?: { method?: string; path?: string } }>;
    readonly interactions?: Record<string, { response?: { status_code?: number } | null }>;
  };
}

/** Only these events carry cases; the rest (tens of MB of requests) need no parsing. */
const FINISHED = '{"ScenarioFinished"';

const finished = (line: string): Recorded => (JSON.parse(line) as { ScenarioFinished: Recorded }).ScenarioFinished;

/** Figures per phase from the NDJSON lines. Pure. */
export function phaseFigures(lines: Iterable<string>): Record<string, PhaseFigures> {
  const figures: Record<string, { scenarios: number; cases: number }> = {};
  for (const line of lines) {
    if (!line.startsWith(FINISHED)) continue;
    const event = finished(line);
    const entry = (figures[event.phase] ??= { scenarios: 0, cases: 0 });
    entry.scenarios += 1;
    entry.cases += Object.keys(event.recorder?.cases ?? {}).length;
  }
  return figures;
}

/**
 * Answers per operation (`METHOD /path` as in the document) and status class (`2xx`, `4xx`, ...;
 * `none` when no answer came), from the NDJSON lines. Requests the checks send with a method the
 * document does not give the path count under that method. Pure.
 */
export function operationStatuses(lines: Iterable<string>): Record<string, Record<string, number>> {
  const figures: Record<string, Record<string, number>> = {};
  for (const line of lines) {
    if (!line.startsWith(FINISHED)) continue;
    const { cases = {}, interactions = {} } = finished(line).recorder ?? {};
    for (const [id, interaction] of Object.entries(interactions)) {
      const value = cases[id]?.value;
      if (value?.method === undefined || value.path === undefined) continue;
      const status = interaction.response?.status_code;
      const key = status === undefined ? 'none' : `${String(Math.floor(status / 100))}xx`;
      const entry = (figures[`${value.method} ${value.path}`] ??= {});
      entry[key] = (entry[key] ?? 0) + 1;
    }
  }
  return figures;
}

async function finishedLines(path: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity }))
    if (line.startsWith(FINISHED)) lines.push(line);
  return lines;
}

/** Figures per phase of the NDJSON report at `path`, read a line at a time. */
export async function reportFigures(path: string): Promise<Record<string, PhaseFigures>> {
  return phaseFigures(await finishedLines(path));
}

/** Answers per operation and status class of the NDJSON report at `path`. */
export async function reportStatuses(path: string): Promise<Record<string, Record<string, number>>> {
  return operationStatuses(await finishedLines(path));
}
