import { describe, expect, it } from 'vitest';
import { definitionSegment } from '../resources/frozen.ts';
import type { DagRunResource, DagRunSegmentResource } from '../resources/types.ts';
import type { ResourceClient } from './client.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import {
  createFrozenRun,
  findFrozenDefinition,
  readFrozenDefinition,
  writeFrozenDefinition,
} from './frozen-definitions.ts';

const apiError = (code: number, reason: string): Error =>
  Object.assign(new Error(reason), { code, body: JSON.stringify({ kind: 'Status', code, reason }) });

/** Segments in a map, with the calls made: what is tested is the order of writes and what is taken. */
function segmentStore(
  initial: DagRunSegmentResource[] = [],
  failCreate?: Error,
): { client: ResourceClient<DagRunSegmentResource>; calls: string[]; stored: Map<string, DagRunSegmentResource> } {
  const stored = new Map(
    initial.map((s, i) => [s.metadata?.name ?? '', { ...s, metadata: { ...s.metadata, uid: `seg-${String(i)}` } }]),
  );
  const calls: string[] = [];
  const client = {
    create: (_ns: string, body: DagRunSegmentResource) => {
      const name = body.metadata?.name ?? '';
      calls.push(`create ${name}`);
      if (failCreate !== undefined) return Promise.reject(failCreate);
      if (stored.has(name)) return Promise.reject(apiError(409, 'AlreadyExists'));
      stored.set(name, { ...body, metadata: { ...body.metadata, uid: 'seg-new' } });
      return Promise.resolve(body);
    },
    get: (_ns: string, name: string) => {
      calls.push(`get ${name}`);
      const found = stored.get(name);
      return found === undefined ? Promise.reject(apiError(404, 'NotFound')) : Promise.resolve(found);
    },
    delete: (_ns: string, name: string, options: { uid?: string }) => {
      calls.push(`delete ${name} ${options.uid ?? ''}`);
      stored.delete(name);
      return Promise.resolve();
    },
  } as unknown as ResourceClient<DagRunSegmentResource>;
  return { client, calls, stored };
}

const owner = { name: 'etl-r1', namespace: 'ns', uid: 'u1' };
const mine = definitionSegment(owner, { steps: ['first'] });
const namesakes = definitionSegment({ ...owner, uid: 'u0' }, { steps: ['stale'] });
const segmentName = mine.metadata?.name ?? '';

describe('writeFrozenDefinition', () => {
  it('writes the definition into a new segment', async () => {
    const { client, calls } = segmentStore();
    expect(await writeFrozenDefinition(client, owner, { steps: ['new'] })).toEqual({
      definition: { steps: ['new'] },
      created: true,
    });
    expect(calls).toEqual([`create ${segmentName}`]);
  });

  it('takes the definition frozen before as it is (a freeze killed before its patch), never a second one', async () => {
    const { client } = segmentStore([mine]);
    expect(await writeFrozenDefinition(client, owner, { steps: ['edited since'] })).toEqual({
      definition: { steps: ['first'] },
      created: false,
    });
  });

  it("deletes a deleted namesake's leftover, guarded by its uid, and writes its own", async () => {
    const { client, calls, stored } = segmentStore([namesakes]);
    expect(await writeFrozenDefinition(client, owner, { steps: ['new'] })).toEqual({
      definition: { steps: ['new'] },
      created: true,
    });
    expect(calls).toEqual([
      `create ${segmentName}`,
      `get ${segmentName}`,
      `delete ${segmentName} seg-0`,
      `create ${segmentName}`,
    ]);
    expect(stored.get(segmentName)?.metadata?.ownerReferences?.[0]?.uid).toBe('u1');
  });
});

describe('readFrozenDefinition', () => {
  const run = (uid: string): DagRunResource =>
    dagRun('etl-r1')
      .namespace('ns')
      .uid(uid)
      .spec({ dagRef: { name: 'etl' }, frozenDefinition: { segment: segmentName } })
      .build();

  it('finds what a freeze killed before its patch wrote, and nothing of a namesake', async () => {
    expect(await findFrozenDefinition(segmentStore([mine]).client, owner)).toEqual({ steps: ['first'] });
    expect(await findFrozenDefinition(segmentStore([namesakes]).client, owner)).toBeUndefined();
  });

  it("reads the run's own segment, and nothing from a namesake's or a missing one", async () => {
    expect(await readFrozenDefinition(segmentStore([mine]).client, run('u1'))).toEqual({ steps: ['first'] });
    expect(await readFrozenDefinition(segmentStore([namesakes]).client, run('u1'))).toBeUndefined();
    expect(await readFrozenDefinition(segmentStore().client, run('u1'))).toBeUndefined();
  });
});

describe('createFrozenRun', () => {
  const body = dagRun('etl-r1')
    .spec({ dagRef: { name: 'etl' }, frozenDefinition: { segment: segmentName } })
    .build();
  const runsClient = (calls: string[]): ResourceClient<DagRunResource> =>
    ({
      create: (namespace: string, run: DagRunResource) => {
        calls.push('create run');
        return Promise.resolve({ ...run, metadata: { ...run.metadata, namespace, uid: 'u1' } });
      },
      delete: (_ns: string, name: string, options: { uid?: string }) => {
        calls.push(`delete run ${name} ${options.uid ?? ''}`);
        return Promise.resolve();
      },
    }) as unknown as ResourceClient<DagRunResource>;

  it('creates the run, then its segment owned by the uid the run got', async () => {
    const { client, stored, calls } = segmentStore();
    const runCalls: string[] = [];
    await createFrozenRun({ runs: runsClient(runCalls), segments: client }, 'ns', body, { steps: ['x'] });
    expect([runCalls, calls]).toEqual([['create run'], [`create ${segmentName}`]]);
    expect(stored.get(segmentName)?.metadata?.ownerReferences?.[0]?.uid).toBe('u1');
  });

  it('takes the run back when its segment cannot be written, and says why', async () => {
    const runCalls: string[] = [];
    const { client } = segmentStore([], apiError(500, 'etcdserver: request is too large'));
    await expect(
      createFrozenRun({ runs: runsClient(runCalls), segments: client }, 'ns', body, { steps: ['x'] }),
    ).rejects.toThrow('request is too large');
    expect(runCalls).toEqual(['create run', 'delete run etl-r1 u1']);
  });
});
