import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { EventHub, MAX_TOPICS } from './event-hub.ts';
import { frame, topicPayload, topicReads } from './topics.ts';

describe("the event stream's topics", () => {
  it("reads each topic Dagu's UI asks for from the /api/v1 route it would poll", () => {
    expect(topicReads('dagrun:greet/r 1')).toEqual({ type: 'dagrun', paths: ['/api/v1/dag-runs/greet/r%201'] });
    expect(topicReads('subdagrun:a/b/c')?.paths).toEqual(['/api/v1/dag-runs/a/b/sub-dag-runs/c']);
    expect(topicReads('dag:greet')?.paths).toEqual(['/api/v1/dags/greet']);
    expect(topicReads('daghistory:greet')?.paths).toEqual(['/api/v1/dags/greet/dag-runs']);
    expect(topicReads('dagruns:limit=5')?.paths).toEqual(['/api/v1/dag-runs?limit=5']);
    expect(topicReads('dagslist:')?.paths).toEqual(['/api/v1/dags']);
    expect(topicReads('queues:')?.paths).toEqual(['/api/v1/queues']);
    expect(topicReads('queueitems:shared')?.paths).toEqual(['/api/v1/queues/shared/items']);
    expect(topicReads('dagrunlogs:greet/r1')?.paths).toEqual([
      '/api/v1/dag-runs/greet/r1/log?tail=500',
      '/api/v1/dag-runs/greet/r1',
    ]);
    expect(topicReads('steplog:greet/r1/a/b')?.paths).toEqual([
      '/api/v1/dag-runs/greet/r1/steps/a%2Fb/log?stream=stdout&tail=500',
      '/api/v1/dag-runs/greet/r1/steps/a%2Fb/log?stream=stderr&tail=500',
    ]);
  });

  it('refuses wiki topics, malformed identifiers and unknown types', () => {
    for (const topic of [
      'wikipage:x',
      'doc:x',
      'dagrun:only-one',
      'dagrun:a/b/c',
      'dag:',
      'nonsense',
      ':x',
      'constructor:x',
    ])
      expect(topicReads(topic)).toBeUndefined();
  });

  it("builds the composite payloads as Dagu's UI reads them", () => {
    const chunk = { content: 'x', lineCount: 1, totalLines: 1, hasMore: false, isEstimate: false };
    const node = { step: { name: 's' }, status: 4, statusLabel: 'succeeded', startedAt: 't0', finishedAt: 't1' };
    expect(
      topicPayload('dagrunlogs', [
        chunk,
        { dagRunDetails: { nodes: [node, { ...node, step: { name: 'n' }, status: 0, startedAt: '' }] } },
      ]),
    ).toEqual({
      schedulerLog: { content: 'x', lineCount: 1, totalLines: 1, hasMore: false },
      stepLogs: [
        {
          stepName: 's',
          status: 4,
          statusLabel: 'succeeded',
          startedAt: 't0',
          finishedAt: 't1',
          hasStdout: true,
          hasStderr: true,
        },
        {
          stepName: 'n',
          status: 0,
          statusLabel: 'succeeded',
          startedAt: '',
          finishedAt: 't1',
          hasStdout: false,
          hasStderr: false,
        },
      ],
    });
    expect(topicPayload('steplog', [chunk, { ...chunk, content: 'e' }])).toEqual({
      stdoutContent: 'x',
      stderrContent: 'e',
      lineCount: 1,
      totalLines: 1,
      hasMore: false,
    });
    expect(frame({ a: 1 }, { event: 'control' })).toBe('event: control\ndata: {"a":1}\n\n');
  });
});

describe('the event hub', () => {
  const drain = (out: PassThrough): string => (out.read() as Buffer | null)?.toString() ?? '';

  it('opens with a control event, sends a payload when it changes and only then, and keeps topics to their owner', async () => {
    let status = 1;
    const hub = new EventHub((path) =>
      Promise.resolve(path.includes('ghost') ? undefined : { dagRunDetails: { status } }),
    );
    const out = new PassThrough();
    const id = hub.open(out, 'alice', {}, ['dagrun:a/1', 'wiki:x']) ?? '';
    await new Promise((resolve) => setImmediate(resolve));
    const opened = drain(out);
    expect(opened).toMatch(
      /^event: control\ndata: \{"sessionID":"[\w-]+","subscribed":\["dagrun:a\/1"\],"errors":\[\{"topic":"wiki:x","code":"invalid_topic"/,
    );
    expect(opened).toContain('id: 1\ndata: {"topic":"dagrun:a/1","payload":{"dagRunDetails":{"status":1}}}\n\n');
    expect(hub.mutate(id, 'mallory', ['dagrun:a/2'], [])).toBeUndefined();
    expect(hub.mutate(id, 'alice', ['dagrun:ghost/1'], ['dagrun:a/1'])).toEqual({
      subscribed: ['dagrun:ghost/1'],
      errors: [],
    });
    expect(hub.mutate(id, 'alice', ['dagrun:a/1'], [])?.subscribed).toEqual(['dagrun:a/1', 'dagrun:ghost/1']);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Added again, the topic is sent again; the unreadable one is not.
    expect(drain(out)).toContain('"topic":"dagrun:a/1"');
    status = 4;
    hub.wake();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(drain(out)).toContain('{"status":4}');
    hub.stop();
    expect(hub.size).toBe(0);
  });

  it('takes at most MAX_TOPICS topics per stream', () => {
    const hub = new EventHub(() => Promise.resolve(undefined));
    const id = hub.open(new PassThrough(), 'a', {}, []) ?? '';
    const topics = Array.from({ length: MAX_TOPICS + 2 }, (_, i) => `dag:d${String(i)}`);
    const result = hub.mutate(id, 'a', topics, []);
    expect([result?.subscribed.length, result?.errors.map((e) => e.code)]).toEqual([
      MAX_TOPICS,
      ['too_many_topics', 'too_many_topics'],
    ]);
    hub.stop();
  });
});
