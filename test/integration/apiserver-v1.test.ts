/**
 * Dagu 2.x's /api/v1 end to end: a real kube-apiserver, the real operator running the steps,
 * every answer checked against the /api/v1 document the server serves. The same handlers as
 * /api/v2's (apiserver.test.ts covers those); here what v1 answers in its own shapes and what
 * only v1 has: paged run lists, run deletion, outputs, the event stream, step approval, and the 501s.
 */
import { describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import type { ContractClient } from './api-support.ts';
import { withApiStack } from './api-stack.ts';
import { waitFor } from './support.ts';

let server: Server;
let api: ContractClient;

interface Node {
  step: { name: string; commands: { command: string; args: string[] }[] };
  status: number;
  statusLabel: string;
}

interface Run {
  dagRunId: string;
  status: number;
  statusLabel: string;
  finishedAt: string;
  nodes: Node[];
  onAbort?: Node;
  onCancel?: unknown;
}

async function details(name: string, id: string): Promise<Run> {
  return ((await api.call('GET', `/api/v1/dag-runs/${name}/${id}`)).body as { dagRunDetails: Run }).dagRunDetails;
}

async function finished(name: string, id: string): Promise<Run> {
  let run: Run | undefined;
  await waitFor(
    `run ${id} to finish`,
    async () => {
      run = await details(name, id);
      return run.finishedAt !== '';
    },
    60_000,
    100,
  );
  return run as Run;
}

withApiStack('kd-apiv1', '/api/v1/openapi.json', (stack) => {
  ({ server, api } = stack);
});

const GREET =
  'tags: [ops]\nparams: NAME=world\nhandlerOn: {cancel: {command: echo aborted}}\nsteps:\n  - {name: say, command: echo hello $NAME, output: GREETING}\n  - {name: after, command: echo done}\n';

describe('/api/v1 on the local control plane', () => {
  it('creates a DAG and reads it in v1 shapes: commands, labels, the abort handler', async () => {
    expect((await api.call('POST', '/api/v1/dags', { name: 'greet', spec: GREET })).status).toBe(201);
    const list = (await api.call('GET', '/api/v1/dags')).body as {
      dags: {
        fileName: string;
        dag: { labels: string[] };
        latestDAGRun: { artifactsAvailable: boolean; autoRetryCount: number };
      }[];
    };
    expect(
      list.dags.map((d) => [
        d.fileName,
        d.dag.labels,
        d.latestDAGRun.artifactsAvailable,
        d.latestDAGRun.autoRetryCount,
      ]),
    ).toEqual([['greet', ['ops'], false, 0]]);
    const details = (await api.call('GET', '/api/v1/dags/greet')).body as {
      fileName: string;
      dag: { steps: Node['step'][]; handlerOn: Record<string, Node['step']> };
    };
    // Dagu 2.15.1's CLI reads this answer as a DAGFile and starts the DAG by its fileName.
    expect(details.fileName).toBe('greet');
    const dag = details.dag;
    expect(dag.steps[0]?.commands).toEqual([{ command: 'echo', args: ['hello', '$NAME'] }]);
    expect(Object.keys(dag.handlerOn)).toEqual(['abort']);
    expect((await api.call('GET', '/api/v1/dags/labels')).body).toEqual({ labels: ['ops'], errors: [] });
    expect(((await api.call('GET', '/api/v1/dags?labels=ops')).body as { dags: unknown[] }).dags).toHaveLength(1);
    expect(((await api.call('GET', '/api/v1/dags?labels=ops,nightly')).body as { dags: unknown[] }).dags).toHaveLength(
      0,
    );
    expect(
      ((await api.call('GET', '/api/v1/dags/greet/spec')).body as { spec: string; valueReferenceNotices: unknown[] })
        .valueReferenceNotices,
    ).toEqual([]);
  });

  it('starts a run, lists it page by page, reads its logs, outputs and spec', async () => {
    for (const id of ['r1', 'r2']) {
      expect(
        (await api.call('POST', '/api/v1/dags/greet/start', { params: '{"NAME":"kube"}', dagRunId: id })).body,
      ).toEqual({ dagRunId: id });
      const run = await finished('greet', id);
      expect([run.statusLabel, run.nodes.map((n) => n.statusLabel), run.onCancel]).toEqual([
        'succeeded',
        ['succeeded', 'succeeded'],
        undefined,
      ]);
    }
    const first = (await api.call('GET', '/api/v1/dag-runs?limit=1')).body as {
      dagRuns: { dagRunId: string }[];
      nextCursor?: string;
    };
    expect(first.dagRuns.map((r) => r.dagRunId)).toEqual(['r2']);
    const second = (await api.call('GET', `/api/v1/dag-runs?limit=1&cursor=${first.nextCursor ?? ''}`)).body as {
      dagRuns: { dagRunId: string }[];
      nextCursor?: string;
    };
    expect([second.dagRuns.map((r) => r.dagRunId), second.nextCursor]).toEqual([['r1'], undefined]);
    expect(
      ((await api.call('GET', '/api/v1/dag-runs/greet?status=4&status=2')).body as { dagRuns: unknown[] }).dagRuns,
    ).toHaveLength(2);
    expect(
      ((await api.call('GET', '/api/v1/dag-runs/greet?status=2')).body as { dagRuns: unknown[] }).dagRuns,
    ).toHaveLength(0);
    expect((await api.call('GET', '/api/v1/dag-runs?cursor=nonsense')).body).toMatchObject({ code: 'bad_request' });

    expect(
      ((await api.call('GET', '/api/v1/dag-runs/greet/r1/steps/say/log')).body as { content: string }).content,
    ).toBe('hello kube');
    expect(((await api.call('GET', '/api/v1/dag-runs/greet/r1/log')).body as { content: string }).content).toContain(
      'step say succeeded',
    );
    expect((await api.call('GET', '/api/v1/dag-runs/greet/r1/outputs')).body).toMatchObject({
      metadata: { dagName: 'greet', dagRunId: 'r1', status: 'succeeded' },
      outputs: { GREETING: 'hello kube' },
    });
    expect((await api.call('GET', '/api/v1/dag-runs/greet/r1/artifacts')).body).toEqual({ items: [] });
    expect(((await api.call('GET', '/api/v1/dag-runs/greet/r1/spec')).body as { spec: string }).spec).toContain(
      'echo hello $NAME',
    );
    const history = (await api.call('GET', '/api/v1/dags/greet/dag-runs')).body as { dagRuns: Run[] };
    expect(history.dagRuns.map((r) => r.dagRunId)).toEqual(['r2', 'r1']);
  });

  it('stops a running run, refuses to delete it while active, then deletes it', async () => {
    await api.call('POST', '/api/v1/dags', {
      name: 'slow',
      spec: 'handlerOn: {cancel: {command: echo aborted}}\nsteps:\n  - {name: wait, command: sleep 30}\n',
    });
    await api.call('POST', '/api/v1/dags/slow/start', { dagRunId: 's1' });
    await waitFor('the step to run', async () => (await details('slow', 's1')).nodes[0]?.status === 1, 30_000);
    // One run at a time (maxActiveRuns 1): a second one waits in the DAG's queue.
    await api.call('POST', '/api/v1/dags/slow/enqueue', { dagRunId: 's2' });
    await waitFor(
      'the queue to list both',
      async () => ((await api.call('GET', '/api/v1/queues/slow')).body as { queuedCount?: number }).queuedCount === 1,
      30_000,
    );
    expect((await api.call('GET', '/api/v1/queues/slow')).body).toMatchObject({
      name: 'slow',
      type: 'dag-based',
      maxConcurrency: 1,
      runningCount: 1,
      queuedCount: 1,
      running: [{ dagRunId: 's1' }],
    });
    expect((await api.call('GET', '/api/v1/queues/slow/items')).body).toMatchObject({
      items: [{ dagRunId: 's2', status: 5 }],
    });
    expect((await api.call('GET', '/api/v1/dag-runs/slow/s2/dequeue')).status).toBe(200);
    expect((await api.call('DELETE', '/api/v1/dag-runs/slow/s1')).body).toMatchObject({ code: 'bad_request' });
    expect((await api.call('POST', '/api/v1/dag-runs/slow/s1/stop')).status).toBe(200);
    const stopped = await finished('slow', 's1');
    expect([stopped.statusLabel, stopped.onAbort?.statusLabel]).toEqual(['canceled', 'succeeded']);
    expect((await api.call('DELETE', '/api/v1/dag-runs/slow/s1')).status).toBe(204);
    expect((await api.call('GET', '/api/v1/dag-runs/slow/s1')).status).toBe(404);
    expect((await api.call('DELETE', '/api/v1/dag-runs/slow/s1')).body).toMatchObject({ code: 'not_found' });
  });

  it('runs a sub-DAG and serves its details, log and spec under the parent run', async () => {
    await api.call('POST', '/api/v1/dags', { name: 'child', spec: 'steps:\n  - {name: inner, command: echo inner}\n' });
    await api.call('POST', '/api/v1/dags', { name: 'parent', spec: 'steps:\n  - {name: call-child, call: child}\n' });
    await api.call('POST', '/api/v1/dags/parent/start', { dagRunId: 'p1' });
    expect((await finished('parent', 'p1')).statusLabel).toBe('succeeded');
    const subRuns = (
      (await api.call('GET', '/api/v1/dag-runs/parent/p1/sub-dag-runs')).body as {
        subRuns: { dagRunId: string; statusLabel: string }[];
      }
    ).subRuns;
    expect(subRuns.map((r) => r.statusLabel)).toEqual(['succeeded']);
    const sub = `/api/v1/dag-runs/parent/p1/sub-dag-runs/${subRuns[0]?.dagRunId ?? ''}`;
    const child = ((await api.call('GET', sub)).body as { dagRunDetails: Run }).dagRunDetails;
    expect(child.nodes.map((n) => n.step.commands)).toEqual([[{ command: 'echo', args: ['inner'] }]]);
    expect(((await api.call('GET', `${sub}/steps/inner/log`)).body as { content: string }).content).toBe('inner');
    expect(((await api.call('GET', `${sub}/spec`)).body as { spec: string }).spec).toContain('echo inner');
  });

  it('downloads logs as attachments: a step log longer than one read, stderr, the run log, a sub-run step', async () => {
    await api.call('POST', '/api/v1/dags', {
      name: 'loud',
      spec: 'steps:\n  - {name: count, script: "seq 1 25000; echo oops >&2"}\n  - {name: never, command: "false", depends: [count], preconditions: [{condition: "a", expected: "b"}]}\n',
    });
    await api.call('POST', '/api/v1/dags/loud/start', { dagRunId: 'd1' });
    await finished('loud', 'd1');
    const stdout = await api.call('GET', '/api/v1/dag-runs/loud/d1/steps/count/log/download');
    expect([stdout.status, stdout.headers['content-type'], stdout.headers['content-disposition']]).toEqual([
      200,
      'text/plain; charset=utf-8',
      'attachment; filename="loud-d1-count-stdout.log"',
    ]);
    const lines = stdout.text.split('\n');
    expect([lines.length, lines[0], lines[9_999], lines[10_000], lines[24_999], lines[25_000]]).toEqual([
      25_001,
      '1',
      '10000',
      '10001',
      '25000',
      '',
    ]);
    const stderr = await api.call('GET', '/api/v1/dag-runs/loud/d1/steps/count/log/download?stream=stderr');
    expect([stderr.text, stderr.headers['content-disposition']]).toEqual([
      'oops\n',
      'attachment; filename="loud-d1-count-stderr.log"',
    ]);
    const run = await api.call('GET', '/api/v1/dag-runs/loud/d1/log/download');
    expect([run.text, run.headers['content-disposition']]).toEqual([
      expect.stringContaining('step count succeeded'),
      'attachment; filename="loud-d1-scheduler.log"',
    ]);
    // A step that never started has no log, as in Dagu: 404.
    expect((await api.call('GET', '/api/v1/dag-runs/loud/d1/steps/never/log/download')).status).toBe(404);
    expect((await api.call('GET', '/api/v1/dag-runs/loud/d1/steps/ghost/log/download')).status).toBe(404);
    const subRuns = (
      (await api.call('GET', '/api/v1/dag-runs/parent/p1/sub-dag-runs')).body as {
        subRuns: { dagRunId: string }[];
      }
    ).subRuns;
    const subId = subRuns[0]?.dagRunId ?? '';
    const sub = await api.call('GET', `/api/v1/dag-runs/parent/p1/sub-dag-runs/${subId}/steps/inner/log/download`);
    expect([sub.text, sub.headers['content-disposition']]).toEqual([
      'inner\n',
      `attachment; filename="parent-p1-sub-${subId}-inner-stdout.log"`,
    ]);
    const subLog = await api.call('GET', `/api/v1/dag-runs/parent/p1/sub-dag-runs/${subId}/log/download`);
    expect(subLog.text).toContain('step inner succeeded');
  });

  it('start-sync answers the ended run, or 408 with the run id while the run goes on', async () => {
    const done = await api.call('POST', '/api/v1/dags/greet/start-sync', { dagRunId: 'sync1', timeout: 60 });
    expect([done.status, (done.body as { dagRun: Run }).dagRun]).toMatchObject([
      200,
      { dagRunId: 'sync1', statusLabel: 'succeeded', nodes: [{ status: 4 }, { status: 4 }] },
    ]);
    await api.call('POST', '/api/v1/dags', { name: 'nap', spec: 'steps:\n  - {name: nap, command: sleep 30}\n' });
    const late = await api.call('POST', '/api/v1/dags/nap/start-sync', { dagRunId: 'sync2', timeout: 1 });
    expect([late.status, late.body]).toEqual([
      408,
      { code: 'timeout', message: expect.stringContaining('after 1 seconds') as unknown, dagRunId: 'sync2' },
    ]);
    expect((await details('nap', 'sync2')).statusLabel).toBe('running');
    expect((await api.call('POST', '/api/v1/dag-runs/nap/sync2/stop')).status).toBe(200);
    expect((await api.call('POST', '/api/v1/dags/nap/start-sync', { timeout: 0 })).body).toMatchObject({
      code: 'bad_request',
    });
  });

  it('answers queues, approval and the operations it does not serve in the contract shape', async () => {
    expect(((await api.call('GET', '/api/v1/queues')).body as { queues: unknown[] }).queues).toEqual(expect.any(Array));
    expect((await api.call('GET', '/api/v1/queues/ghost')).body).toMatchObject({ code: 'not_found' });
    // A step that does not wait for a person: Dagu's 400 and message.
    expect((await api.call('POST', '/api/v1/dag-runs/greet/r1/steps/say/approve', {})).body).toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/^step say is not waiting for approval \(status: /) as unknown,
    });
    expect((await api.call('POST', '/api/v1/dag-runs/greet/r1/steps/ghost/approve', {})).body).toMatchObject({
      code: 'not_found',
    });
    const users = await api.call('GET', '/api/v1/users');
    expect([users.status, (users.body as { code: string }).code]).toEqual([501, 'not_implemented']);
    expect((await api.call('GET', '/api/v1/health')).body).toMatchObject({ status: 'healthy' });
  });

  it('streams a run as it changes on /events/stream', async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const controller = new AbortController();
    const response = await fetch(`${address}/api/v1/events/stream?topic=dagrun:greet/live&topic=wiki:x`, {
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const until = async (done: () => boolean): Promise<void> => {
      while (!done()) {
        const { value } = await reader.read();
        text += new TextDecoder().decode(value);
      }
    };
    await until(() => text.includes('event: control'));
    expect(text).toContain('"subscribed":["dagrun:greet/live"]');
    expect(text).toContain('"code":"invalid_topic"');
    // The run does not exist yet: its topic says nothing until the start makes it.
    await api.call('POST', '/api/v1/dags/greet/start', { dagRunId: 'live' });
    const labels = (): string[] =>
      text
        .split('\n')
        .filter((line) => line.startsWith('data: {"topic"'))
        .map((line) => JSON.parse(line.slice('data: '.length)) as { topic: string; payload: { dagRunDetails: Run } })
        .filter((message) => message.topic === 'dagrun:greet/live')
        .map((message) => message.payload.dagRunDetails.statusLabel);
    await until(() => labels().includes('succeeded'));
    controller.abort();
  });
});
