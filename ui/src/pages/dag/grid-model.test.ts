import { describe, expect, it } from 'vitest';
import type { HandlerKey } from '../../lib/handlers.ts';
import { historyGrid } from './grid-model.ts';

/** A run as GET /dags/{fileName}/dag-runs gives it, with only what the grid reads. */
class RunBuilder {
  // onInit and onWait are absent unless run, as /api/v2 leaves them out for a DAG without them.
  private readonly run: {
    dagRunId: string;
    name: string;
    status: number;
    statusLabel: string;
    startedAt: string;
    queuedAt: string;
    nodes: { step: { name: string } }[];
  } & { [K in HandlerKey]?: unknown } = {
    dagRunId: '',
    name: 'etl',
    status: 4,
    statusLabel: 'succeeded',
    startedAt: '',
    queuedAt: '',
    nodes: [] as { step: { name: string } }[],
    onSuccess: null,
    onFailure: null,
    onCancel: null,
    onExit: null,
  };

  constructor(id: string) {
    this.run.dagRunId = id;
  }

  steps(...names: string[]): this {
    this.run.nodes = names.map((name) => ({ step: { name } }));
    return this;
  }

  started(at: string): this {
    this.run.startedAt = at;
    return this;
  }

  queued(at: string): this {
    this.run.queuedAt = at;
    return this;
  }

  failed(): this {
    this.run.status = 2;
    this.run.statusLabel = 'failed';
    return this;
  }

  handled(event: HandlerKey): this {
    this.run[event] = { step: { name: event } };
    return this;
  }

  build(): typeof this.run {
    return { ...this.run };
  }
}

const run = (id: string): RunBuilder => new RunBuilder(id);

describe('historyGrid', () => {
  it('makes a column per run in the order given (newest first) and a cell per step and run', () => {
    const grid = historyGrid(
      [
        run('r2').steps('extract', 'load').started('2026-11-24T10:00:00Z').failed().build(),
        run('r1').steps('extract', 'load').started('2026-11-23T10:00:00Z').build(),
      ],
      [
        { name: 'extract', history: [4, 4] },
        { name: 'load', history: [2, 4] },
      ],
      ['extract', 'load'],
    );
    expect({
      columns: grid.columns.map((c) => [c.dagRunId, c.statusLabel, c.at]),
      rows: grid.rows.map((r) => [r.name, ...r.cells.map((c) => c.statusLabel)]),
    }).toEqual({
      columns: [
        ['r2', 'failed', Date.parse('2026-11-24T10:00:00Z')],
        ['r1', 'succeeded', Date.parse('2026-11-23T10:00:00Z')],
      ],
      rows: [
        ['extract', 'succeeded', 'succeeded'],
        ['load', 'failed', 'succeeded'],
      ],
    });
  });

  const cases: {
    name: string;
    runs: ReturnType<RunBuilder['build']>[];
    grid: { name: string; history: number[] }[];
    order: string[];
    want: (string | undefined)[][];
  }[] = [
    {
      name: 'rows follow the definition, not the server’s name order; old steps after, handlers last',
      runs: [run('r1').steps('zeta', 'alpha', 'gone').handled('onExit').handled('onSuccess').build()],
      grid: [
        { name: 'alpha', history: [4] },
        { name: 'gone', history: [4] },
        { name: 'zeta', history: [4] },
        { name: 'onSuccess', history: [4] },
        { name: 'onExit', history: [4] },
      ],
      order: ['zeta', 'alpha'],
      want: [
        ['zeta', 'succeeded'],
        ['alpha', 'succeeded'],
        ['gone', 'succeeded'],
        ['onSuccess', 'succeeded'],
        ['onExit', 'succeeded'],
      ],
    },
    {
      name: 'Dagu 2.x’s init and wait handlers come first among the handlers, in the order a run meets them',
      runs: [
        run('r2').steps('review').handled('onExit').handled('onWait').handled('onInit').build(),
        run('r1').steps('review').handled('onExit').build(),
      ],
      grid: [
        { name: 'review', history: [4, 4] },
        { name: 'onInit', history: [4, 0] },
        { name: 'onWait', history: [2, 0] },
        { name: 'onExit', history: [4, 4] },
      ],
      order: ['review'],
      want: [
        ['review', 'succeeded', 'succeeded'],
        ['onInit', 'succeeded', undefined],
        ['onWait', 'failed', undefined],
        ['onExit', 'succeeded', 'succeeded'],
      ],
    },
    {
      name: 'a step a run did not have is an empty cell, not “not started”',
      runs: [run('r2').steps('a', 'b').build(), run('r1').steps('a').build()],
      grid: [
        { name: 'a', history: [4, 4] },
        { name: 'b', history: [1, 0] },
      ],
      order: ['a', 'b'],
      want: [
        ['a', 'succeeded', 'succeeded'],
        ['b', 'running', undefined],
      ],
    },
    {
      name: 'a handler that did not run in a run is empty there',
      runs: [run('r2').steps('a').handled('onFailure').build(), run('r1').steps('a').build()],
      grid: [
        { name: 'a', history: [2, 4] },
        { name: 'onFailure', history: [4, 0] },
      ],
      order: ['a'],
      want: [
        ['a', 'failed', 'succeeded'],
        ['onFailure', 'succeeded', undefined],
      ],
    },
    {
      name: 'a step’s 5 is skipped (a run’s 5 would be queued)',
      runs: [run('r1').steps('a').build()],
      grid: [{ name: 'a', history: [5] }],
      order: ['a'],
      want: [['a', 'skipped']],
    },
    { name: 'no runs, no rows', runs: [], grid: [], order: ['a'], want: [] },
  ];
  it.each(cases)('$name', ({ runs, grid, order, want }) => {
    expect(historyGrid(runs, grid, order).rows.map((r) => [r.name, ...r.cells.map((c) => c.statusLabel)])).toEqual(
      want,
    );
  });

  it('dates a queued run that never started by when it was queued', () => {
    expect(historyGrid([run('q').queued('2026-11-24T09:00:00Z').build()], []).columns[0]?.at).toBe(
      Date.parse('2026-11-24T09:00:00Z'),
    );
  });
});

describe('historyGrid of a big DAG', () => {
  const names = Array.from({ length: 120 }, (_, i) => `s${String(i + 1).padStart(3, '0')}`);
  const runs = [
    run('r2')
      .steps(...names)
      .handled('onExit')
      .build(),
    run('r1')
      .steps(...names)
      .build(),
  ];
  const grid = [...names.map((name) => ({ name, history: [4, 2] })), { name: 'onExit', history: [4, 0] }];

  it('makes only the asked page of rows, and says which page of how many', () => {
    const page = historyGrid(runs, grid, names, { page: 2, size: 50 });
    expect([page.rows.map((r) => r.name).at(0), page.rows.length, page.rowPage]).toEqual([
      's051',
      50,
      { page: 2, totalPages: 3, totalRecords: 121, offset: 50 },
    ]);
  });

  it('ends with the handlers on the last page; a page past the end shows the last', () => {
    const last = historyGrid(runs, grid, names, { page: 9, size: 50 });
    expect([last.rowPage.page, last.rows.map((r) => [r.name, ...r.cells.map((c) => c.statusLabel)]).at(-1)]).toEqual([
      3,
      ['onExit', 'succeeded', undefined],
    ]);
  });

  it('without a page, every row is on one', () => {
    expect(historyGrid(runs, grid, names).rows.length).toBe(121);
  });
});
