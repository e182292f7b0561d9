/** Prints vitest JSON reports as one plain closing line: `N passed, N failed, N skipped`. */
import { existsSync, readFileSync } from 'node:fs';

interface Report {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly numTodoTests: number;
}

// A report that is absent belongs to a suite make skipped (the real node's without root): it said so.
const reports = process.argv
  .slice(2)
  .filter((path) => existsSync(path))
  .map((path) => JSON.parse(readFileSync(path, 'utf8')) as Report);
const sum = (pick: (r: Report) => number): number => reports.reduce((n, r) => n + pick(r), 0);
console.log(
  `${sum((r) => r.numPassedTests)} passed, ${sum((r) => r.numFailedTests)} failed, ${sum((r) => r.numPendingTests + r.numTodoTests)} skipped`,
);
