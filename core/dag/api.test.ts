import { describe, expect, it } from 'vitest';
import { dagDetails, dagSummary } from './api.ts';
import { loadDag } from './load.ts';

const load = (yaml: string): ReturnType<typeof loadDag> => {
  const result = loadDag(yaml, { fileName: 'shapes' });
  expect(result.errors).toEqual([]);
  return result;
};

describe('dagSummary', () => {
  it('matches the contract for a DAG with every summary field', () => {
    const { dag } = load(
      'name: report\ngroup: Finance\ndescription: " monthly "\ntags: "Finance, Monthly ,finance"\nschedule: {start: "0 1 1 * *", stop: "0 5 1 * *"}\nparams: "A=1 pos"\nqueue: reports\nmaxActiveRuns: 3\nsteps: [echo]',
    );
    expect(dagSummary(dag)).toEqual({
      name: 'report',
      group: 'Finance',
      schedule: [{ expression: '0 1 1 * *' }],
      description: 'monthly',
      params: ['A', '1'],
      defaultParams: '{"A":"1","1":"pos"}',
      tags: ['finance', 'monthly'],
      queue: 'reports',
      maxActiveRuns: 3,
      runConfig: { disableParamEdit: false, disableRunIdEdit: false },
    });
  });

  it('gives empty strings and lists, never absent fields, for a minimal DAG', () => {
    expect(dagSummary(load('steps: [echo]').dag)).toEqual({
      name: 'shapes',
      group: '',
      schedule: [],
      description: '',
      params: [],
      defaultParams: '',
      tags: [],
      queue: '',
      maxActiveRuns: 1,
      runConfig: { disableParamEdit: false, disableRunIdEdit: false },
    });
  });
});

describe('dagDetails', () => {
  it('is the default DAG that POST /dags creates without a spec', () => {
    const details = dagDetails(load('steps:\n  - command: echo hello').dag);
    expect(details).toMatchObject({
      name: 'shapes',
      type: 'chain',
      maxActiveRuns: 1,
      maxActiveSteps: 0,
      histRetentionDays: 30,
      maxCleanUpTimeSec: 5,
      delay: 0,
      handlerOn: {},
    });
    expect(details.steps).toEqual([
      {
        name: 'cmd_1',
        command: 'echo',
        args: ['hello'],
        cmdWithArgs: 'echo hello',
        depends: [],
        preconditions: [],
        continueOn: { failure: false, skipped: false, exitCode: [], output: [], markSuccess: false },
        mailOnError: false,
        executor: { type: 'shell', config: {} },
        signalOnStop: 'SIGTERM',
        timeoutSec: 0,
        workerSelector: {},
        env: [],
      },
    ]);
  });

  it('lists env as NAME=value, handlers by event, preconditions with expected and error', () => {
    const details = dagDetails(
      load(
        'env: [{A: 1}, "B=${A}x"]\ndelaySec: 7\nlogDir: /logs\npreconditions: [{condition: "$X", expected: yes}]\nsteps: [echo]\nhandlerOn: {failure: {command: notify}, exit: {command: cleanup}}',
      ).dag,
    );
    expect(details.env).toEqual(['A=1', 'B=${A}x']);
    expect(details.delay).toBe(7);
    expect(details.logDir).toBe('/logs');
    expect(details.preconditions).toEqual([{ condition: '$X', expected: 'yes', error: '' }]);
    expect(Object.keys(details.handlerOn)).toEqual(['failure', 'exit']);
    expect(details.handlerOn.exit?.name).toBe('onExit');
  });

  it('shows a sub-DAG step with call, its legacy run name and params as text', () => {
    const [step] = dagDetails(load('steps:\n  - {call: child, params: {A: 1}}').dag).steps;
    expect(step).toMatchObject({
      name: 'dag_1',
      call: 'child',
      run: 'child',
      params: '{"A":1}',
      executor: { type: 'dag', config: {} },
    });
  });

  it('shows parallel items as text and repeat policies with the contract boolean', () => {
    const [fan, poll] = dagDetails(
      load(
        'type: graph\nsteps:\n  - {call: child, parallel: {items: [a, {x: 1}], maxConcurrent: 2}}\n  - {command: check, repeatPolicy: {condition: "$S", expected: done, intervalSec: 30}}',
      ).dag,
    ).steps;
    expect(fan?.parallel).toEqual({ items: ['a', '{"x":1}'], maxConcurrent: 2 });
    expect(poll?.repeatPolicy).toEqual({
      repeat: true,
      repeatMode: 'until',
      interval: 30,
      limit: 0,
      condition: { condition: '$S', expected: 'done', error: '' },
      exitCode: [],
    });
  });

  it('survives JSON serialisation unchanged (no undefined, no cycles)', () => {
    const details = dagDetails(load('steps:\n  - {name: a, command: ls, retryPolicy: {limit: 1, intervalSec: 2}}').dag);
    expect(JSON.parse(JSON.stringify(details))).toEqual(details);
  });
});
