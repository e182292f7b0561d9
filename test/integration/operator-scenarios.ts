/**
 * The table of whole runs operator.test.ts drives on the local control plane: a DAG, optional
 * params, and the run's and each step's final status.
 */
export interface Scenario {
  readonly name: string;
  readonly dag: string;
  readonly params?: string;
  readonly run: string;
  /** Each step that ran (a step that never started has no record). */
  readonly steps: Record<string, string>;
}

export const scenarios: Scenario[] = [
  {
    name: 'a chain of commands succeeds',
    dag: 'steps: [echo one, echo two, echo three]',
    run: 'succeeded',
    steps: { cmd_1: 'succeeded', cmd_2: 'succeeded', cmd_3: 'succeeded' },
  },
  {
    name: 'a failing step cancels what depends on it',
    dag: 'steps: [echo one, "exit 3", echo three]',
    run: 'failed',
    steps: { cmd_1: 'succeeded', cmd_2: 'failed', cmd_3: 'canceled' },
  },
  {
    name: 'continueOn exit codes make the run partially succeed',
    dag: 'steps:\n  - {name: flaky, command: exit 7, continueOn: {exitCode: [7]}}\n  - {name: next, command: echo ok}',
    run: 'partially_succeeded',
    steps: { flaky: 'failed', next: 'succeeded' },
  },
  {
    name: 'an unmet command precondition skips the step',
    dag: 'steps:\n  - {name: guarded, command: echo never, preconditions: ["test -e /definitely/absent"]}\n  - {name: after, command: echo, continueOn: {skipped: true}}',
    run: 'succeeded',
    steps: { guarded: 'skipped', after: 'skipped' },
  },
  {
    name: 'a retried step gets a fresh Pod per attempt until it succeeds',
    dag: 'steps:\n  - {name: flaky, command: "test -f .marker || { touch .marker; exit 1; }", retryPolicy: {limit: 2, intervalSec: 1}}',
    run: 'succeeded',
    steps: { flaky: 'succeeded' },
  },
  {
    name: 'params reach commands as variables and overrides replace defaults',
    dag: 'params: "WHO=nobody COUNT=1"\nsteps:\n  - test "$WHO:$COUNT" = "kube:1"',
    params: 'WHO=kube',
    run: 'succeeded',
    steps: { cmd_1: 'succeeded' },
  },
  {
    name: 'backticks in env and params run once in a prepare Pod and every step sees the result',
    dag: 'env:\n  - STAMP: "`echo from-prepare`"\nparams: "WHEN=`echo today`"\nsteps:\n  - test "$STAMP:$WHEN" = "from-prepare:today"\n  - test "$STAMP" = "from-prepare"',
    run: 'succeeded',
    steps: { cmd_1: 'succeeded', cmd_2: 'succeeded' },
  },
  {
    name: 'a step the platform cannot run rejects the run',
    dag: 'steps:\n  - {command: actions/checkout@v4, executor: gha}',
    run: 'failed',
    steps: {},
  },
  {
    name: 'a DAG precondition whose command substitution gives another value cancels the run before any step',
    dag: 'preconditions: [{condition: "`echo 6`", expected: "1"}]\nsteps: [echo never]',
    run: 'canceled',
    steps: {},
  },
  {
    name: 'a DAG precondition that is a failing command cancels the run',
    dag: 'preconditions: ["test -e /definitely/absent"]\nsteps: [echo never]',
    run: 'canceled',
    steps: {},
  },
  {
    name: 'DAG preconditions that hold, with env and params in scope, let the steps run',
    dag: 'env: [WANT=1]\nparams: P=x\npreconditions: [{condition: "`echo $WANT`", expected: "1"}, "test $P = x"]\nsteps: [echo ran]',
    run: 'succeeded',
    steps: { cmd_1: 'succeeded' },
  },
];
