/**
 * What a schemathesis run did, per phase, from its NDJSON event report: test cases (the
 * requests of each finished scenario) and scenarios. The console shows only totals.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

export interface PhaseFigures {
  readonly scenarios: number;
  readonly cases: number;
}

/** Figures per phase from the NDJSON lines. Pure. */
export function phaseFigures(lines: Iterable<string>): Record<string, PhaseFigures> {
  const figures: Record<string, { scenarios: number; cases: number }> = {};
  for (const line of lines) {
    // Only these events carry cases; the rest (tens of MB of requests) need no parsing.
    if (!line.startsWith('{"ScenarioFinished"')) continue;
    const event = (
      JSON.parse(line) as { ScenarioFinished: { phase: string; recorder?: { cases?: Record<string, unknown> } } }
    ).ScenarioFinished;
    const entry = (figures[event.phase] ??= { scenarios: 0, cases: 0 });
    entry.scenarios += 1;
    entry.cases += Object.keys(event.recorder?.cases ?? {}).length;
  }
  return figures;
}

/** Figures per phase of the NDJSON report at `path`, read a line at a time. */
export async function reportFigures(path: string): Promise<Record<string, PhaseFigures>> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity }))
    if (line.startsWith('{"ScenarioFinished"')) lines.push(line);
  return phaseFigures(lines);
}
