import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WorkQueue } from './queue.ts';

/** One worker that records the keys it works on; the key "busy" takes 20 ms. */
function recordingQueue(): { calls: string[]; queue: WorkQueue } {
  const calls: string[] = [];
  const queue = new WorkQueue({
    concurrency: 1,
    worker: async (key) => {
      calls.push(key);
      await sleep(key === 'busy' ? 20 : 0);
      return undefined;
    },
  });
  return { calls, queue };
}

describe('WorkQueue', () => {
  it('collapses adds of a waiting key into one call', async () => {
    const { calls, queue } = recordingQueue();
    queue.add('busy');
    queue.add('a');
    queue.add('a');
    queue.add('b');
    await queue.idle();
    expect(calls).toEqual(['busy', 'a', 'b']);
  });

  it('puts a key added first ahead of the waiting ones, moving it if it was waiting', async () => {
    const { calls, queue } = recordingQueue();
    queue.add('busy');
    queue.add('a');
    queue.add('b');
    queue.add('c');
    queue.addFirst('c');
    queue.addFirst('urgent');
    await queue.idle();
    expect(calls).toEqual(['busy', 'urgent', 'c', 'a', 'b']);
  });

  it('never works on one key twice at a time, and runs it again after an add during work', async () => {
    let concurrent = 0;
    let most = 0;
    let calls = 0;
    const queue = new WorkQueue({
      concurrency: 4,
      worker: async () => {
        concurrent += 1;
        most = Math.max(most, concurrent);
        calls += 1;
        await sleep(20);
        concurrent -= 1;
        return undefined;
      },
    });
    queue.add('k');
    await sleep(5);
    queue.add('k');
    queue.add('k');
    await sleep(100);
    await queue.idle();
    expect([most, calls]).toEqual([1, 2]);
  });

  it('retries a failing key with growing delays', async () => {
    const times: number[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      baseDelayMs: 20,
      worker: () => {
        times.push(Date.now());
        return times.length < 3 ? Promise.reject(new Error('not yet')) : Promise.resolve(undefined);
      },
    });
    queue.add('k');
    await sleep(250);
    expect(times).toHaveLength(3);
    const gaps = [(times[1] ?? 0) - (times[0] ?? 0), (times[2] ?? 0) - (times[1] ?? 0)];
    expect(gaps[0]).toBeGreaterThanOrEqual(15);
    expect(gaps[1]).toBeGreaterThanOrEqual(35);
  });

  it('calls again after the delay a worker asks for, the earliest timer winning', async () => {
    const calls: number[] = [];
    const start = Date.now();
    const queue = new WorkQueue({
      concurrency: 1,
      worker: () => {
        calls.push(Date.now() - start);
        return Promise.resolve(calls.length === 1 ? { requeueAfterMs: 60 } : undefined);
      },
    });
    queue.add('k');
    queue.addAfter('k', 500);
    await sleep(150);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toBeGreaterThanOrEqual(50);
  });

  it('takes no work after shutdown', async () => {
    const calls: string[] = [];
    const queue = new WorkQueue({
      concurrency: 1,
      worker: (key) => {
        calls.push(key);
        return Promise.resolve(undefined);
      },
    });
    await queue.shutdown();
    queue.add('late');
    await sleep(10);
    expect(calls).toEqual([]);
  });
});
