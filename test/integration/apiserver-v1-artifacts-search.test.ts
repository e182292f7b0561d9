/**
 * /api/v1's later operations end to end on the local control plane, every answer checked
 * against the /api/v1 document the server serves. Run artifacts: a step writes files into
 * DAG_RUN_ARTIFACTS_DIR, its runner sends the new ones through its log, the operator's archiver
 * keeps them in the log store, and /api/v1 lists, previews and downloads them, for a run and for
 * a sub-run. The DAG search:
 * the feed and one DAG's matches over the spec text, paged by cursor.
 */
import { describe, expect, it } from 'vitest';
import type { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { waitFor } from './support.ts';

let api: ContractClient;

withApiStack('kd-artifacts', '/api/v1/openapi.json', (stack) => {
  ({ api } = stack);
});

const REPORT = `artifacts:
  enabled: true
steps:
  - name: write
    run: echo "# Report" > "$DAG_RUN_ARTIFACTS_DIR/report.md" && mkdir -p "$DAG_RUN_ARTIFACTS_DIR/data" && echo first > "$DAG_RUN_ARTIFACTS_DIR/data/t.csv"
  - name: rewrite
    depends: [write]
    run: echo second > "$DAG_RUN_ARTIFACTS_DIR/data/t.csv"
`;

describe('run artifacts through /api/v1 on the local control plane', () => {
  it('lists, previews and downloads the files the steps left, the later write winning', async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'report', spec: REPORT })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/dags/report/start', { dagRunId: 'a1' })).status).toBe(200);
    await waitFor(
      'run a1 to finish',
      async () => {
        const body = (await api.call('GET', '/api/v1/dag-runs/report/a1')).body as {
          dagRunDetails: { finishedAt: string; statusLabel: string };
        };
        return body.dagRunDetails.finishedAt !== '';
      },
      90_000,
      200,
    );
    const details = (await api.call('GET', '/api/v1/dag-runs/report/a1')).body as {
      dagRunDetails: { statusLabel: string };
    };
    expect(details.dagRunDetails.statusLabel).toBe('succeeded');

    // The archiver keeps an attempt's files once its Pod has ended, which may be just after the run ends.
    await waitFor(
      'both steps archived',
      async () => {
        const download = await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/download?path=data/t.csv');
        return download.text === 'second\n';
      },
      30_000,
      200,
    );
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts')).body).toEqual({
      items: [
        { name: 'data', path: 'data', type: 'directory' },
        { name: 'report.md', path: 'report.md', type: 'file', size: 9 },
      ],
    });
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts?recursive=true')).body).toEqual({
      items: [
        {
          name: 'data',
          path: 'data',
          type: 'directory',
          children: [{ name: 't.csv', path: 'data/t.csv', type: 'file', size: 7 }],
        },
        { name: 'report.md', path: 'report.md', type: 'file', size: 9 },
      ],
    });
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/preview?path=report.md')).body).toEqual({
      name: 'report.md',
      path: 'report.md',
      kind: 'markdown',
      mimeType: 'text/markdown',
      size: 9,
      tooLarge: false,
      truncated: false,
      content: '# Report\n',
    });
    const download = await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/download?path=data/t.csv');
    expect([download.status, download.text, download.headers['content-disposition']]).toEqual([
      200,
      'second\n',
      'attachment; filename="t.csv"',
    ]);
    expect((await api.call('GET', '/api/v1/dag-runs/report/a1/artifacts/download?path=nope.txt')).status).toBe(404);
    expect(api.checked).toBeGreaterThan(0);
  });
});

const NESTED = `steps:
  - name: call
    action: dag.run
    with: {dag: child}
---
name: child
artifacts: {enabled: true}
steps:
  - name: make
    run: echo from the sub-run > "$DAG_RUN_ARTIFACTS_DIR/sub.txt"
`;

describe('sub-run artifacts through /api/v1', () => {
  it("lists, previews and downloads a sub-run's files under its root run", async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'nested', spec: NESTED })).status).toBe(201);
    expect((await api.call('POST', '/api/v1/dags/nested/start', { dagRunId: 'n1' })).status).toBe(200);
    let sub = '';
    await waitFor(
      "the sub-run's file archived",
      async () => {
        const subRuns = (await api.call('GET', '/api/v1/dag-runs/nested/n1/sub-dag-runs')).body as {
          subRuns?: { dagRunId: string }[];
        };
        sub = `/api/v1/dag-runs/nested/n1/sub-dag-runs/${subRuns.subRuns?.[0]?.dagRunId ?? 'none'}`;
        const list = await api.call('GET', `${sub}/artifacts`);
        return list.status === 200 && (list.body as { items: unknown[] }).items.length === 1;
      },
      90_000,
      250,
    );
    expect((await api.call('GET', `${sub}/artifacts`)).body).toEqual({
      items: [{ name: 'sub.txt', path: 'sub.txt', type: 'file', size: 17 }],
    });
    expect((await api.call('GET', `${sub}/artifacts/preview?path=sub.txt`)).body).toMatchObject({
      kind: 'text',
      content: 'from the sub-run\n',
    });
    expect((await api.call('GET', `${sub}/artifacts/download?path=sub.txt`)).text).toBe('from the sub-run\n');
    // The root run keeps none of its own: the files are the sub-run's.
    expect((await api.call('GET', '/api/v1/dag-runs/nested/n1/artifacts')).body).toEqual({ items: [] });
  });
});

describe('the DAG search through /api/v1', () => {
  it("finds DAGs by their spec text, then pages through one DAG's matches", async () => {
    await api.call('POST', '/api/v1/dags', { name: 'plain', spec: 'steps:\n  - name: s\n    run: echo plain\n' });
    interface Feed {
      results: {
        fileName: string;
        matches: { lineNumber: number }[];
        hasMoreMatches: boolean;
        nextMatchesCursor: string;
      }[];
      hasMore: boolean;
      nextCursor?: string;
    }
    const rows = (feed: Feed) =>
      feed.results.map((r) => [r.fileName, r.matches.map((m) => m.lineNumber), r.hasMoreMatches]);
    // Two DAGs use the directory (nested's child and report), one a page, in file-name order.
    const first = (await api.call('GET', '/api/v1/search/dags?q=dag_run_artifacts_dir&limit=1')).body as Feed;
    expect([rows(first), first.hasMore]).toEqual([[['nested', [10], false]], true]);
    const page = `/api/v1/search/dags?q=dag_run_artifacts_dir&limit=1&cursor=${encodeURIComponent(first.nextCursor ?? '')}`;
    const feed = (await api.call('GET', page)).body as Feed;
    expect([rows(feed), feed.hasMore]).toEqual([[['report', [5], true]], false]);
    const cursor = encodeURIComponent(feed.results[0]?.nextMatchesCursor ?? '');
    const more = await api.call('GET', `/api/v1/search/dags/report/matches?q=dag_run_artifacts_dir&cursor=${cursor}`);
    expect(more.body).toEqual({
      matches: [
        {
          line: '  - name: rewrite\n    depends: [write]\n    run: echo second > "$DAG_RUN_ARTIFACTS_DIR/data/t.csv"',
          lineNumber: 8,
          startLine: 6,
        },
      ],
      hasMore: false,
    });
    expect((await api.call('GET', '/api/v1/search/dags?q=echo&labels=none')).body).toEqual({
      results: [],
      hasMore: false,
    });
    expect((await api.call('GET', `/api/v1/search/dags?q=echo&cursor=${cursor}`)).status).toBe(400);
    expect((await api.call('GET', '/api/v1/search/dags/missing/matches?q=echo')).status).toBe(404);
  });
});
