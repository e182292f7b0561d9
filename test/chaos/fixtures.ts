/**
 * The DAGs of the chaos runs, each with the end it must reach whatever happens to the operator
 * and the control plane: chains, parallel groups, retries, failures that continue, sub-DAG calls
 * and parallel items. Every outcome is decided by the DAG alone (exit codes, a retry counter in
 * the run's workspace), so the expected status of a run follows from which DAG it runs.
 */

export interface Expected {
  /** The run's final status label. */
  readonly status: string;
  /** Each step's final status label. */
  readonly steps: Readonly<Record<string, string>>;
  /**
   * How many attempt Pods each step of the run itself starts (steps that call sub-DAGs start
   * child runs, not Pods, and are left out). A step attempt started twice, or one too many,
   * shows here and in the node agents' ledgers.
   */
  readonly pods: Readonly<Record<string, number>>;
}

export interface ChaosDag {
  readonly name: string;
  readonly yaml: string;
  readonly expected: Expected;
}

/** A sub-DAG the others call: two quick steps. */
const WORKER = [
  '---',
  'name: worker',
  'params: [N]',
  'steps:',
  '  - {name: work, command: "sleep 0.2"}',
  '  - {name: report, command: "echo item $N"}',
].join('\n');

/**
 * Fails until its third attempt: the count lives in the run's workspace, so an attempt that
 * ran twice (or a lost count) would change the outcome or the retry count.
 */
const FLAKY = 'n=$(cat flaky.count 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" > flaky.count; [ "$n" -ge 3 ]';

export const MIXED: readonly ChaosDag[] = [
  {
    name: 'chain',
    yaml: [
      'steps:',
      '  - {name: one, command: "sleep 0.2"}',
      '  - {name: two, command: "sleep 0.3"}',
      '  - {name: three, command: "exit 0"}',
    ].join('\n'),
    expected: {
      status: 'succeeded',
      steps: { one: 'succeeded', two: 'succeeded', three: 'succeeded' },
      pods: { one: 1, two: 1, three: 1 },
    },
  },
  {
    name: 'fan',
    yaml: [
      'type: graph',
      'maxActiveSteps: 3',
      'steps:',
      '  - {name: start, command: "sleep 0.2"}',
      '  - {name: left, command: "sleep 0.4", depends: start}',
      '  - {name: middle, command: "sleep 0.2", depends: start}',
      '  - {name: right, command: "sleep 0.3", depends: start}',
      '  - {name: join, command: "true", depends: [left, middle, right]}',
    ].join('\n'),
    expected: {
      status: 'succeeded',
      steps: { start: 'succeeded', left: 'succeeded', middle: 'succeeded', right: 'succeeded', join: 'succeeded' },
      pods: { start: 1, left: 1, middle: 1, right: 1, join: 1 },
    },
  },
  {
    name: 'retry',
    yaml: [
      'steps:',
      `  - name: flaky`,
      `    command: '${FLAKY}'`,
      '    retryPolicy: {limit: 3, intervalSec: 1}',
      '  - {name: after, command: "true"}',
    ].join('\n'),
    expected: { status: 'succeeded', steps: { flaky: 'succeeded', after: 'succeeded' }, pods: { flaky: 3, after: 1 } },
  },
  {
    name: 'fails',
    yaml: [
      'type: graph',
      'handlerOn:',
      '  exit: {command: "true"}',
      'steps:',
      '  - {name: setup, command: "true"}',
      '  - {name: broken, command: "exit 3", depends: setup, retryPolicy: {limit: 1, intervalSec: 0}}',
      '  - {name: tolerated, command: "exit 4", depends: setup, continueOn: {failure: true}}',
      '  - {name: never, command: "true", depends: broken}',
    ].join('\n'),
    expected: {
      status: 'failed',
      steps: { setup: 'succeeded', broken: 'failed', tolerated: 'failed', never: 'canceled' },
      pods: { setup: 1, broken: 2, tolerated: 1, never: 0 },
    },
  },
  {
    name: 'partial',
    yaml: [
      'steps:',
      '  - {name: shaky, command: "exit 5", continueOn: {failure: true}}',
      '  - {name: goes-on, command: "true"}',
    ].join('\n'),
    expected: {
      status: 'partially_succeeded',
      steps: { shaky: 'failed', 'goes-on': 'succeeded' },
      pods: { shaky: 1, 'goes-on': 1 },
    },
  },
  {
    name: 'nested',
    yaml: [
      'steps:',
      '  - {name: prepare, command: "true"}',
      '  - {name: inner, call: worker, params: "N=1"}',
      '  - {name: finish, command: "true"}',
      WORKER,
    ].join('\n'),
    expected: {
      status: 'succeeded',
      steps: { prepare: 'succeeded', inner: 'succeeded', finish: 'succeeded' },
      pods: { prepare: 1, finish: 1 },
    },
  },
  {
    name: 'items',
    yaml: [
      'steps:',
      '  - name: each',
      '    call: worker',
      '    parallel: {items: [a, b, c], maxConcurrent: 2}',
      '    params: "N=${ITEM}"',
      '  - {name: finish, command: "true"}',
      WORKER,
    ].join('\n'),
    expected: { status: 'succeeded', steps: { each: 'succeeded', finish: 'succeeded' }, pods: { finish: 1 } },
  },
  {
    name: 'sub-fails',
    yaml: [
      'steps:',
      '  - {name: inner, call: failing}',
      '  - {name: never, command: "true"}',
      '---',
      'name: failing',
      'steps:',
      '  - {name: boom, command: "exit 7"}',
    ].join('\n'),
    expected: { status: 'failed', steps: { inner: 'failed', never: 'canceled' }, pods: { never: 0 } },
  },
];

/** The DAG of the i-th run: in turn, so that any mix of at least MIXED.length runs has each. */
export function dagOfRun(index: number): ChaosDag {
  return MIXED[index % MIXED.length] as ChaosDag;
}

export function runName(prefix: string, index: number): string {
  return `${prefix}-${String(index).padStart(3, '0')}`;
}
