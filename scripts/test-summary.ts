/** Prints vitest's JSON report as one plain closing line: `N passed, N failed, N skipped`. */
import { readFileSync } from 'node:fs';

interface Report {
  readonly numPassedTests: number;
  readonly numFailedTests: number;
  readonly numPendingTests: number;
  readonly numTodoTests: number;
}

const path = process.argv[2] ?? '.dev/vitest-report.json';
const report = JSON.parse(readFileSync(path, 'utf8')) as Report;
console.log(`${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`);
