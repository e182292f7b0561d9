/**
 * Parse + validate benchmark (figures, not a test): a 1,000-step DAG, and 1,000 small DAG
 * files. Targets: under 50 ms for the big DAG, under 500 ms for the 1,000 files together.
 * Run with `make bench`. Timings on shared machines are noisy; the median of several rounds
 * is reported, after a warm-up that also pays the one-time schema compilation.
 */
import { performance } from 'node:perf_hooks';
import { loadDag } from '../core/dag/index.ts';

function bigDag(steps: number): string {
  const lines = ['name: big', 'type: graph', 'params: "A=1 B=2"', 'env:', '  - LOG_LEVEL: info', 'steps:'];
  for (let i = 0; i < steps; i += 1) {
    lines.push(`  - name: step-${i}`, `    command: python3 task.py --part ${i} --date \${A}`);
    if (i > 0) lines.push(`    depends: [step-${i - 1}${i > 10 ? `, step-${i - 10}` : ''}]`);
    if (i % 10 === 0)
      lines.push('    retryPolicy: {limit: 3, intervalSec: 5, backoff: true}', '    continueOn: {exitCode: [2, 3]}');
    if (i % 25 === 0) lines.push('    preconditions:', '      - condition: "${A}"', '        expected: "re:^[0-9]+$"');
  }
  return `${lines.join('\n')}\n`;
}

function smallDag(i: number): string {
  return [
    `name: small-${i}`,
    `schedule: "${i % 60} * * * *"`,
    'params: "DATE=today"',
    'steps:',
    '  - echo start ${DATE}',
    `  - name: work`,
    `    command: ["run-job", "--id", "${i}"]`,
    '    retryPolicy: {limit: 2, intervalSec: 10}',
    '  - [echo a, echo b]',
    'handlerOn:',
    '  failure: {command: notify failed}',
    '',
  ].join('\n');
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function measure(label: string, rounds: number, work: () => void, targetMs: number): void {
  work();
  const times: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  const m = median(times);
  const verdict = m <= targetMs ? 'within' : 'OVER';
  console.log(
    `${label.padEnd(44)} median ${m.toFixed(1).padStart(7)} ms  min ${Math.min(...times)
      .toFixed(1)
      .padStart(7)} ms  (target ${targetMs} ms: ${verdict})`,
  );
}

const big = bigDag(1000);
const smalls = Array.from({ length: 1000 }, (_, i) => smallDag(i));
console.log(
  `big DAG: ${(Buffer.byteLength(big) / 1024).toFixed(0)} KiB; small DAGs: ${(smalls.reduce((n, s) => n + s.length, 0) / 1024).toFixed(0)} KiB in all`,
);

measure(
  'parse + validate one 1,000-step DAG',
  15,
  () => {
    const load = loadDag(big, { fileName: 'big' });
    if (load.errors.length > 0 || load.dag.steps.length !== 1000) throw new Error('big DAG did not load cleanly');
  },
  50,
);

measure(
  'parse + validate 1,000 small DAG files',
  7,
  () => {
    for (const [i, text] of smalls.entries()) {
      const load = loadDag(text, { fileName: `small-${i}` });
      if (load.errors.length > 0) throw new Error(`small DAG ${i} did not load cleanly`);
    }
  },
  500,
);
