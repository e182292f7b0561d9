import { describe, expect, it } from 'vitest';
import type { ResourceClient } from '../core/kube/client.ts';
import { definitionSegmentName } from '../core/resources/names.ts';
import type { DagRunResource, DagRunSegmentResource } from '../core/resources/types.ts';
import { dagRunSegment } from '../test/builders/dag-run-segment.ts';
import { dagRun } from '../test/builders/dag-run.ts';
import { RunDefinitions } from './definitions.ts';

/** Definition segments by name, each owned by `uid-<run>`, and the reads made: the cache is what is tested. */
function segmentsClient(
  stepsByRun: Record<string, number>,
  same = false,
): { client: ResourceClient<DagRunSegmentResource>; reads: string[] } {
  const reads: string[] = [];
  const byName = new Map(
    Object.entries(stepsByRun).map(([run, steps]) => {
      const segment = dagRunSegment(definitionSegmentName(run))
        .namespace('ns')
        .ownedBy(run, `uid-${run}`)
        .definition({
          steps: Array.from({ length: steps }, (_, i) => ({
            name: `s${String(i)}`,
            command: same ? 'true' : `echo ${run}`,
          })),
        })
        .build();
      return [segment.metadata?.name ?? '', { run, segment }] as const;
    }),
  );
  const client = {
    get: (_namespace: string, name: string) => {
      const found = byName.get(name);
      reads.push(found?.run ?? name);
      return found === undefined
        ? Promise.reject(Object.assign(new Error('not found'), { code: 404 }))
        : Promise.resolve(found.segment);
    },
  } as unknown as ResourceClient<DagRunSegmentResource>;
  return { client, reads };
}

const frozenRun = (name: string, status = 4): DagRunResource =>
  dagRun(name)
    .namespace('ns')
    .uid(`uid-${name}`)
    .of('etl')
    .spec({
      frozenDefinition: { segment: definitionSegmentName(name) },
    })
    .status({ status })
    .build();

describe('RunDefinitions', () => {
  it('loads a definition kept in the spec without reading any segment', async () => {
    const { client, reads } = segmentsClient({});
    const old = dagRun('old')
      .uid('uid-old')
      .spec({ dagRef: { name: 'etl' } })
      .snapshot({ steps: ['echo old'] })
      .build();
    expect((await new RunDefinitions(client).dag(old))?.steps.map((s) => s.cmdWithArgs)).toEqual(['echo old']);
    expect(reads).toEqual([]);
  });

  it('reads a frozen segment once for all the versions of its run (each status write makes a new object)', async () => {
    const { client, reads } = segmentsClient({ big: 3 });
    const definitions = new RunDefinitions(client);
    expect((await definitions.dag(frozenRun('big', 1)))?.steps.map((s) => s.name)).toEqual(['s0', 's1', 's2']);
    await definitions.dag(frozenRun('big', 4));
    expect(reads).toEqual(['big']);
  });

  it('reads once for a burst of requests that arrive together', async () => {
    const { client, reads } = segmentsClient({ big: 3 });
    const definitions = new RunDefinitions(client);
    await Promise.all([
      definitions.dag(frozenRun('big')),
      definitions.dag(frozenRun('big')),
      definitions.dag(frozenRun('big')),
    ]);
    expect(reads).toEqual(['big']);
  });

  it("loads a definition once for all the runs frozen with it (a DAG's history)", async () => {
    const { client, reads } = segmentsClient({ a: 3, b: 3, c: 3 }, true);
    const definitions = new RunDefinitions(client);
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((name) => definitions.dag(frozenRun(name))));
    expect([b === a, c === a, reads.sort()]).toEqual([true, true, ['a', 'b', 'c']]);
  });

  it('shows nothing for a run whose segment is not written yet, and reads it again later', async () => {
    const { client, reads } = segmentsClient({});
    const definitions = new RunDefinitions(client);
    expect(await definitions.dag(frozenRun('early'))).toBeUndefined();
    expect(await definitions.dag(frozenRun('early'))).toBeUndefined();
    expect(reads).toHaveLength(2);
  });

  it('holds at most its limit of definition bytes, dropping the least recently used first', async () => {
    const { client, reads } = segmentsClient({ a: 20, b: 20, c: 20 });
    const one = JSON.stringify({
      steps: Array.from({ length: 20 }, (_, i) => ({ name: `s${String(i)}`, command: 'echo a' })),
    }).length;
    const definitions = new RunDefinitions(client, one * 2.5);
    for (const name of ['a', 'b', 'a', 'c', 'a', 'b']) await definitions.dag(frozenRun(name));
    expect(reads).toEqual(['a', 'b', 'c', 'b']);
  });

  it('keeps the newest definition even when it alone is over the limit', async () => {
    const { client, reads } = segmentsClient({ huge: 50 });
    const definitions = new RunDefinitions(client, 10);
    await definitions.dag(frozenRun('huge'));
    await definitions.dag(frozenRun('huge'));
    expect(reads).toEqual(['huge']);
  });
});
