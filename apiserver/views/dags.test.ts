import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from '../../core/resources/constants.ts';
import { dagManifest } from '../../core/resources/dag.ts';
import type { DagResource, DagRunResource } from '../../core/resources/types.ts';
import {
  dagDetailsView,
  dagEntry,
  dagListItem,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  paginate,
  renderYaml,
  searchText,
  selectDags,
  specDigest,
  uniqueTags,
  type DagEntry,
  type DagQuery,
  type Pagination,
} from './dags.ts';
import { runDetails, runSummary } from './runs.ts';

/** One step is all a DAG needs to load without errors. */
const STEPS = [{ name: 'hello', command: 'echo hello' }];

/** A DAG resource as `dagManifest` makes it from a file's documents, plus extra annotations. */
function dagResource(
  fileName: string,
  documents: Record<string, unknown>[],
  annotations: Record<string, string> = {},
): DagResource {
  const manifest = dagManifest(fileName, documents);
  return {
    ...manifest,
    metadata: { ...manifest.metadata, annotations: { ...manifest.metadata.annotations, ...annotations } },
  };
}

function entry(fileName: string, fields: Record<string, unknown> = {}): DagEntry {
  return dagEntry(dagResource(fileName, [{ steps: STEPS, ...fields }]));
}

const numbers = (count: number): number[] => Array.from({ length: count }, (_, i) => i + 1);

describe('paginate', () => {
  interface PageCase {
    readonly total: number;
    readonly page: number | undefined;
    readonly perPage: number | undefined;
    /** First and last item of the page, or [] for an empty page. */
    readonly span: [number, number] | [];
    readonly pagination: Pagination;
  }

  it.each<[string, PageCase]>([
    [
      'the first page of 50 when neither page nor perPage is given',
      {
        total: 120,
        page: undefined,
        perPage: undefined,
        span: [1, 50],
        pagination: { totalRecords: 120, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'a middle page with both neighbours',
      {
        total: 120,
        page: 2,
        perPage: undefined,
        span: [51, 100],
        pagination: { totalRecords: 120, currentPage: 2, totalPages: 3, nextPage: 3, prevPage: 1 },
      },
    ],
    [
      'a short last page without a next page',
      {
        total: 120,
        page: 3,
        perPage: undefined,
        span: [101, 120],
        pagination: { totalRecords: 120, currentPage: 3, totalPages: 3, nextPage: null, prevPage: 2 },
      },
    ],
    [
      'the default size for perPage 0',
      {
        total: 60,
        page: 1,
        perPage: 0,
        span: [1, 50],
        pagination: { totalRecords: 60, currentPage: 1, totalPages: 2, nextPage: 2, prevPage: null },
      },
    ],
    [
      'the default size for a negative perPage',
      {
        total: 60,
        page: 1,
        perPage: -5,
        span: [1, 50],
        pagination: { totalRecords: 60, currentPage: 1, totalPages: 2, nextPage: 2, prevPage: null },
      },
    ],
    [
      'pages of 1000 when perPage is larger',
      {
        total: 2500,
        page: 1,
        perPage: 5000,
        span: [1, 1000],
        pagination: { totalRecords: 2500, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'page 1 for page 0',
      {
        total: 10,
        page: 0,
        perPage: 4,
        span: [1, 4],
        pagination: { totalRecords: 10, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'page 1 for a negative page',
      {
        total: 10,
        page: -3,
        perPage: 4,
        span: [1, 4],
        pagination: { totalRecords: 10, currentPage: 1, totalPages: 3, nextPage: 2, prevPage: null },
      },
    ],
    [
      'one empty page for no items',
      {
        total: 0,
        page: undefined,
        perPage: undefined,
        span: [],
        pagination: { totalRecords: 0, currentPage: 1, totalPages: 1, nextPage: null, prevPage: null },
      },
    ],
    [
      'an empty page past the end, whose previous page is the last one',
      {
        total: 10,
        page: 4,
        perPage: 5,
        span: [],
        pagination: { totalRecords: 10, currentPage: 4, totalPages: 2, nextPage: null, prevPage: 2 },
      },
    ],
    [
      'exactly full pages without a trailing empty one',
      {
        total: 10,
        page: 2,
        perPage: 5,
        span: [6, 10],
        pagination: { totalRecords: 10, currentPage: 2, totalPages: 2, nextPage: null, prevPage: 1 },
      },
    ],
  ])('gives %s', (_, { total, page, perPage, span, pagination }) => {
    const result = paginate(numbers(total), page, perPage);
    expect(result.pagination).toEqual(pagination);
    expect(span.length === 0 ? result.items : [result.items[0], result.items.at(-1)]).toEqual(span);
  });

  it('uses a default of 50 and a maximum of 1000 per page', () => {
    expect([DEFAULT_PER_PAGE, MAX_PER_PAGE]).toEqual([50, 1000]);
  });

  it('leaves the list it pages through unchanged', () => {
    const items = numbers(7);
    paginate(items, 2, 3);
    expect(items).toEqual(numbers(7));
  });
});

describe('selectDags', () => {
  /** Monday 2026-03-02 00:00 UTC: `15 * * * *` fires at 00:15, `0 2 * * *` at 02:00. */
  const now = new Date('2026-03-02T00:00:00Z');
  const all = [
    entry('nightly', { name: 'Nightly', schedule: '0 2 * * *', tags: ['prod', 'ETL'] }),
    entry('hourly', { schedule: '15 * * * *', tags: ['prod'] }),
    entry('adhoc', { tags: ['production'] }),
    entry('also-hourly', { name: 'Beta', schedule: '15 * * * *' }),
    entry('manual', { name: 'zeta' }),
  ];
  const select = (query: DagQuery): string[] => selectDags(all, query, now).map((e) => e.fileName);

  it.each<[string, DagQuery, string[]]>([
    ['sorts by DAG name, ignoring case, by default', {}, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    [
      'sorts by DAG name in reverse for order=desc',
      { order: 'desc' },
      ['manual', 'nightly', 'hourly', 'also-hourly', 'adhoc'],
    ],
    ['sorts an unknown sort key by name', { sort: 'bogus' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    [
      'sorts sort=name by name',
      { sort: 'name', order: 'desc' },
      ['manual', 'nightly', 'hourly', 'also-hourly', 'adhoc'],
    ],
    ['filters by a case-insensitive substring of the file name', { name: 'HOUR' }, ['also-hourly', 'hourly']],
    ['filters on the file name, not the DAG name', { name: 'beta' }, []],
    ['keeps every DAG for an empty name filter', { name: '' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
    ['filters by an exact tag, ignoring case', { tag: 'PROD' }, ['hourly', 'nightly']],
    ['trims the tag it filters by', { tag: ' etl ' }, ['nightly']],
    ['finds nothing for a tag no DAG has', { tag: 'prod*' }, []],
    ['combines the name and tag filters', { name: 'night', tag: 'prod' }, ['nightly']],
    ["keeps DAGs with every one of v1's labels", { labels: 'prod, etl' }, ['nightly']],
    ['keeps every DAG for empty labels', { labels: ' , ' }, ['adhoc', 'also-hourly', 'hourly', 'nightly', 'manual']],
  ])('%s', (_, query, expected) => {
    expect(select(query)).toEqual(expected);
  });

  it.each<[string, DagQuery, string[]]>([
    [
      'puts the earliest next start first and unscheduled DAGs last, ties by name',
      { sort: 'nextRun' },
      ['also-hourly', 'hourly', 'nightly', 'adhoc', 'manual'],
    ],
    [
      'puts the latest next start first for order=desc, still unscheduled DAGs last',
      { sort: 'nextRun', order: 'desc' },
      ['nightly', 'also-hourly', 'hourly', 'adhoc', 'manual'],
    ],
  ])('%s under sort=nextRun', (_, query, expected) => {
    expect(select(query)).toEqual(expected);
  });

  it('takes the next start from the given now', () => {
    // At 01:30 the hourly DAGs next fire at 02:15, after the nightly one at 02:00.
    const later = selectDags(all, { sort: 'nextRun' }, new Date('2026-03-02T01:30:00Z')).map((e) => e.fileName);
    expect(later).toEqual(['nightly', 'also-hourly', 'hourly', 'adhoc', 'manual']);
  });

  it('leaves the list it selects from unchanged', () => {
    const before = all.map((e) => e.fileName);
    selectDags(all, { sort: 'nextRun', order: 'desc' }, now);
    expect(all.map((e) => e.fileName)).toEqual(before);
  });
});

describe('searchText', () => {
  it.each<[string, string, RegExp, { line: string; lineNumber: number; startLine: number }[]]>([
    ['nothing when no line matches', 'a\nb', /zzz/, []],
    [
      'a match on the first line with the next line only',
      'foo\nbar\nbaz',
      /foo/,
      [{ line: 'foo\nbar', lineNumber: 1, startLine: 1 }],
    ],
    [
      'a middle match with one line either side',
      'a\nfoo\nb\nc',
      /foo/,
      [{ line: 'a\nfoo\nb', lineNumber: 2, startLine: 1 }],
    ],
    [
      'a match on the last line with the previous line only',
      'a\nb\nfoo',
      /foo/,
      [{ line: 'b\nfoo', lineNumber: 3, startLine: 2 }],
    ],
    [
      'each matching line, 1-based',
      'foo\nx\ny\nfoo',
      /foo/,
      [
        { line: 'foo\nx', lineNumber: 1, startLine: 1 },
        { line: 'y\nfoo', lineNumber: 4, startLine: 3 },
      ],
    ],
    [
      'every line of a global pattern, whatever its lastIndex',
      'foo\nfoo',
      /foo/g,
      [
        { line: 'foo\nfoo', lineNumber: 1, startLine: 1 },
        { line: 'foo\nfoo', lineNumber: 2, startLine: 1 },
      ],
    ],
    [
      'matches of a case-insensitive pattern',
      'steps:\n  - command: ECHO',
      /echo/i,
      [{ line: 'steps:\n  - command: ECHO', lineNumber: 2, startLine: 1 }],
    ],
    ['a single-line text', 'foo', /o+/, [{ line: 'foo', lineNumber: 1, startLine: 1 }]],
  ])('finds %s', (_, text, pattern, expected) => {
    expect(searchText(text, pattern)).toEqual(expected);
  });
});

describe('uniqueTags', () => {
  it.each<[string, Record<string, unknown>[], string[]]>([
    ['no tags for no DAGs', [], []],
    ['no tags for DAGs without tags', [{}, {}], []],
    [
      'each tag once, sorted',
      [{ tags: ['prod', 'etl'] }, { tags: ['prod'] }, { tags: ['batch'] }],
      ['batch', 'etl', 'prod'],
    ],
    ['tags lowercased as the DAGs load them', [{ tags: ['Prod'] }, { tags: ['prod'] }], ['prod']],
    ['tags written as one comma-separated string', [{ tags: 'b, a' }], ['a', 'b']],
  ])('lists %s', (_, fields, expected) => {
    expect(uniqueTags(fields.map((f, i) => entry(`dag-${String(i)}`, f)))).toEqual(expected);
  });
});

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
  return {
    metadata: { name: 'etl-r1', creationTimestamp: new Date('2026-03-01T10:00:00Z') },
    spec: { dagRef: { name: 'etl' }, dagName: 'etl', dagRunId: 'r1' },
    status: {
      status: 4,
      statusLabel: 'succeeded',
      startedAt: '2026-03-01T10:00:01Z',
      finishedAt: '2026-03-01T10:00:09Z',
    },
  };
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
