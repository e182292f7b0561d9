import { describe, expect, it } from 'vitest';
import type { ResourceClient } from '../core/kube/client.ts';
import type { DagRunResource, DagRunSegmentResource } from '../core/resources/types.ts';
import { dagRunSegment } from '../test/builders/dag-run-segment.ts';
import { dagRun } from '../test/builders/dag-run.ts';
import { RunRecords } from './records.ts';

/** A segment client that answers lists from a table and counts them: the cache is what is tested here. */
function segmentsClient(byRun: Record<string, number>): {
  client: ResourceClient<DagRunSegmentResource>;
  lists: string[];
} {
  const lists: string[] = [];
  const client = {
    list: (_namespace: string, options: { labelSelector?: string }) => {
      const run = (options.labelSelector ?? '').split('=')[1] ?? '';
      lists.push(run);
      const nodes = Array.from({ length: byRun[run] ?? 0 }, (_, i) => ({
        name: `s${String(i)}`,
        status: 4,
        statusLabel: 'succeeded',
      }));
      return Promise.resolve({
        items: [dagRunSegment(`${run}-steps-0`).ownedBy(run, `uid-${run}`).steps(0, nodes).build()],
      });
    },
  } as unknown as ResourceClient<DagRunSegmentResource>;
  return { client, lists };
}

const run = (name: string, sealed?: number): DagRunResource =>
  dagRun(name)
    .namespace('ns')
    .uid(`uid-${name}`)
    .status({
      status: 4,
      nodes: [{ name: 'tail', status: 4, statusLabel: 'succeeded' }],
      ...(sealed === undefined ? {} : { sealed }),
    })
    .build();

describe('RunRecords', () => {
  it('answers a run that sealed nothing as it is, without reading segments', async () => {
    const { client, lists } = segmentsClient({});
    const plain = run('small');
    expect(await new RunRecords(client).expand(plain)).toBe(plain);
    expect(lists).toEqual([]);
  });

  it('adds the sealed records to the status, reading each run once while it stays in the cache', async () => {
    const { client, lists } = segmentsClient({ big: 3 });
    const records = new RunRecords(client);
    const expanded = await records.expand(run('big', 1));
    expect(expanded.status?.nodes?.map((n) => n.name)).toEqual(['s0', 's1', 's2', 'tail']);
    await records.expand(run('big', 1));
    expect(lists).toEqual(['big']);
  });

  it('holds at most its limit of records, dropping the least recently used run first', async () => {
    const { client, lists } = segmentsClient({ a: 60, b: 60, c: 60 });
    const records = new RunRecords(client, 150);
    await records.expand(run('a', 1));
    await records.expand(run('b', 1));
    await records.expand(run('a', 1));
    await records.expand(run('c', 1));
    await records.expand(run('a', 1));
    await records.expand(run('b', 1));
    expect(lists).toEqual(['a', 'b', 'c', 'b']);
  });
});
