import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import { dagDetailsView, dagEntry, dagListItem, renderYaml, specDigest, type DagEntry } from './dags.ts';
import { runDetails, runSummary } from './runs.ts';
import { dagResource, entry, STEPS } from '../../test/dag-entries.ts';
import { dagRun } from '../../test/builders/dag-run.ts';

describe('specDigest', () => {
  it('does not depend on key order, at any depth', () => {
    const a = { name: 'etl', steps: [{ name: 's', command: 'echo' }], env: { A: '1', B: '2' } };
    const b = { env: { B: '2', A: '1' }, steps: [{ command: 'echo', name: 's' }], name: 'etl' };
    expect(specDigest(a)).toBe(specDigest(b));
  });

  it('ignores keys whose value is undefined', () => {
    expect(specDigest({ name: 'etl', description: undefined })).toBe(specDigest({ name: 'etl' }));
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['a changed value', { name: 'etl' }, { name: 'etl2' }],
    ['a different list order', { tags: ['a', 'b'] }, { tags: ['b', 'a'] }],
    ['a number written as text', { timeoutSec: 30 }, { timeoutSec: '30' }],
    ['null instead of an absent key', { description: null }, {}],
  ])('changes with %s', (_, a, b) => {
    expect(specDigest(a)).not.toBe(specDigest(b));
  });
});

describe('dagEntry', () => {
  const written = '# Loads the warehouse.\nname: etl\nsteps:\n  - name: load\n    command: echo load   # quick\n';
  const spec = { name: 'etl', steps: [{ name: 'load', command: 'echo load' }] };
  const writtenThroughApi = (
    resourceSpec: Record<string, unknown>,
    digestOf: Record<string, unknown>,
    extra: Record<string, string> = {},
  ): DagResource =>
    dagResource('etl', [resourceSpec], {
      [ANNOTATIONS.specYaml]: written,
      [ANNOTATIONS.specDigest]: specDigest(digestOf),
      ...extra,
    });

  it('answers the YAML written through the API verbatim while the digest matches the spec', () => {
    expect(dagEntry(writtenThroughApi(spec, spec)).yaml).toBe(written);
  });

  it('matches the digest whatever the order of the keys in the spec', () => {
    const reordered = { steps: [{ command: 'echo load', name: 'load' }], name: 'etl' };
    expect(dagEntry(writtenThroughApi(reordered, spec)).yaml).toBe(written);
  });

  it('renders the spec when it changed since the API wrote it (a kubectl edit)', () => {
    const edited = { name: 'etl', steps: [{ name: 'load', command: 'echo reload' }] };
    const result = dagEntry(writtenThroughApi(edited, spec));
    expect(result.yaml).toBe(renderYaml(edited));
    expect(result.yaml).toContain('echo reload');
    expect(result.yaml).not.toContain('# Loads the warehouse.');
    expect(result.load.dag.steps[0]?.cmdWithArgs).toBe('echo reload');
  });

  it('renders the spec when only the YAML annotation is there', () => {
    const resource = dagResource('etl', [spec], { [ANNOTATIONS.specYaml]: written });
    expect(dagEntry(resource).yaml).toBe(renderYaml(spec));
  });

  it('renders local DAGs as later documents of the file', () => {
    const resource = dagResource('etl', [spec, { name: 'child', steps: STEPS }]);
    const result = dagEntry(resource);
    expect(result.yaml).toBe(
      'name: etl\nsteps:\n  - name: load\n    command: echo load\n---\nname: child\nsteps:\n  - name: hello\n    command: echo hello\n',
    );
    expect(result.load.localDags.map((l) => l.name)).toEqual(['child']);
  });

  it('takes the file name from its annotation, else from the resource name', () => {
    expect(dagEntry(dagResource('My ETL', [spec])).fileName).toBe('My ETL');
    expect(dagEntry({ metadata: { name: 'plain' }, spec: { steps: STEPS } }).fileName).toBe('plain');
  });

  it('names a DAG without a name after its file', () => {
    expect(entry('report').load.dag.name).toBe('report');
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['"true"', { [ANNOTATIONS.suspended]: 'true' }, true],
    ['"false"', { [ANNOTATIONS.suspended]: 'false' }, false],
    ['anything but "true"', { [ANNOTATIONS.suspended]: 'yes' }, false],
    ['absent', {}, false],
  ])('is suspended when the annotation is %s: %s', (_, annotations, suspended) => {
    expect(dagEntry(dagResource('etl', [spec], annotations)).suspended).toBe(suspended);
  });

  it('lists load errors as `path: message`', () => {
    expect(dagEntry(dagResource('empty', [{ name: 'empty' }])).errors).toEqual([
      'steps: a DAG needs at least one step',
    ]);
    expect(entry('fine').errors).toEqual([]);
  });

  it('is memoised: the same object gives the same entry, a copy a new one', () => {
    const resource = dagResource('etl', [spec]);
    expect(dagEntry(resource)).toBe(dagEntry(resource));
    expect(dagEntry({ ...resource })).not.toBe(dagEntry(resource));
  });
});

/** A finished run of `etl`, for the latest run of list items and details. */
function finishedRun(): DagRunResource {
  return dagRun('etl-r1')
    .created(new Date('2026-03-01T10:00:00Z'))
    .of('etl', 'r1')
    .status({
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-03-01T10:00:01Z',
      finishedAt: '2026-03-01T10:00:09Z',
    })
    .build();
}

const NEVER_RAN = {
  rootDAGRunName: 'etl',
  rootDAGRunId: '',
  parentDAGRunName: '',
  parentDAGRunId: '',
  dagRunId: '',
  name: 'etl',
  status: 0,
  statusLabel: 'not_started',
  queuedAt: '',
  startedAt: '',
  finishedAt: '',
  log: '',
  params: '',
};

describe('dagListItem', () => {
  const etl = (): DagEntry =>
    dagEntry(
      dagResource('etl-file', [{ name: 'etl', tags: ['prod'], steps: STEPS }], { [ANNOTATIONS.suspended]: 'true' }),
    );

  it('shows a DAG that never ran with a latest run of status 0 and empty ids', () => {
    expect(dagListItem(etl(), undefined).latestDAGRun).toEqual(NEVER_RAN);
  });

  it('shows the latest run as its run summary', () => {
    const run = finishedRun();
    expect(dagListItem(etl(), run).latestDAGRun).toEqual(runSummary(run));
  });

  it('carries the file name, summary, suspension and errors of the entry', () => {
    const item = dagListItem(etl(), undefined);
    expect(item).toMatchObject({ fileName: 'etl-file', suspended: true, errors: [] });
    expect(item.dag).toMatchObject({ name: 'etl', tags: ['prod'] });
  });
});

describe('dagDetailsView', () => {
  const withLocals = (): DagEntry =>
    dagEntry(
      dagResource('etl', [{ steps: STEPS }, { name: 'zulu', steps: STEPS }, { name: 'alpha', steps: [{ name: 'a' }] }]),
    );

  it('lists local DAGs sorted by name, each with its details and errors', () => {
    const view = dagDetailsView(withLocals(), undefined);
    expect(view.localDags.map((l) => [l.name, l.dag.name, l.errors.length > 0])).toEqual([
      ['alpha', 'alpha', true],
      ['zulu', 'zulu', false],
    ]);
  });

  it('shows a DAG that never ran with a latest run of status 0, empty ids, and a not-started node per step and handler', () => {
    const spec = {
      steps: [
        { name: 'extract', command: 'echo e' },
        { name: 'load', command: 'echo l', depends: ['extract'] },
      ],
      handlerOn: { exit: { command: 'echo bye' } },
      preconditions: [{ condition: '$ENV', expected: 'prod' }],
    };
    const latest = dagDetailsView(dagEntry(dagResource('etl', [spec])), undefined).latestDAGRun;
    const pending = {
      stdout: '',
      stderr: '',
      startedAt: '',
      finishedAt: '',
      status: 0,
      statusLabel: 'not_started',
      retryCount: 0,
      doneCount: 0,
      subRuns: [],
      subRunsRepeated: [],
      error: '',
    };
    expect(latest).toEqual({
      ...NEVER_RAN,
      nodes: [
        {
          ...pending,
          step: expect.objectContaining({ name: 'extract', command: 'echo', args: ['e'], depends: [] }) as unknown,
        },
        { ...pending, step: expect.objectContaining({ name: 'load', depends: ['extract'] }) as unknown },
      ],
      onExit: {
        ...pending,
        step: expect.objectContaining({ name: 'onExit', command: 'echo', args: ['bye'] }) as unknown,
      },
      onSuccess: null,
      onFailure: null,
      onCancel: null,
      preconditions: [{ condition: '$ENV', expected: 'prod', error: '' }],
    });
  });

  it('gives a DAG that never ran not-started onInit and onWait nodes when it defines those handlers, and none when not', () => {
    const spec = {
      steps: [{ name: 'review', command: 'echo r' }],
      handlerOn: { init: { command: 'echo hello' }, wait: { command: 'echo waiting' } },
    };
    const latest = dagDetailsView(dagEntry(dagResource('gate', [spec])), undefined).latestDAGRun;
    expect([latest.onInit?.step.name, latest.onInit?.statusLabel, latest.onWait?.step.name]).toEqual([
      'onInit',
      'not_started',
      'onWait',
    ]);
    const plain = dagDetailsView(
      dagEntry(dagResource('plain', [{ steps: [{ name: 'a', command: 'echo' }] }])),
      undefined,
    );
    expect(['onInit' in plain.latestDAGRun, 'onWait' in plain.latestDAGRun]).toEqual([false, false]);
  });

  it('shows the latest run with the details it is given', () => {
    const run = finishedRun();
    const details = runDetails(run, undefined, () => undefined);
    expect(dagDetailsView(withLocals(), details).latestDAGRun).toBe(details);
  });

  it('details the DAG itself: its steps, suspension and the errors of the whole file', () => {
    const view = dagDetailsView(withLocals(), undefined);
    expect(view.dag.steps.map((s) => s.name)).toEqual(['hello']);
    expect(view.suspended).toBe(false);
    expect(view.errors).toHaveLength(1);
    expect(view.errors[0]).toMatch(/^documents\[2\]/);
  });
});
