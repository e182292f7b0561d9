/**
 * The execution ledger: one JSON line per container start and exit (and per kill at agent
 * restart), written synchronously before the agent moves on, so tests can prove that a
 * container never ran twice.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Clock } from '../../core/kube/time.ts';

export interface LedgerEntry {
  readonly time: string;
  readonly node: string;
  readonly event: 'start' | 'exit' | 'kill-on-restart';
  readonly podUid: string;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
  readonly restartCount: number;
  readonly pid?: number;
  readonly exitCode?: number;
}

export class Ledger {
  readonly path: string;
  readonly node: string;
  private readonly clock: Clock;

  constructor(path: string, node: string, clock: Clock) {
    this.path = path;
    this.node = node;
    this.clock = clock;
    mkdirSync(dirname(path), { recursive: true });
  }

  record(entry: Omit<LedgerEntry, 'time' | 'node'>): void {
    appendFileSync(
      this.path,
      `${JSON.stringify({ time: this.clock.now().toISOString(), node: this.node, ...entry })}\n`,
    );
  }
}

export function readLedger(path: string): LedgerEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LedgerEntry);
}
