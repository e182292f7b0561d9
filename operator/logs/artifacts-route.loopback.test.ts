import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptArtifacts } from './archiver.ts';
import { logRefOf } from './keys.ts';
import { operatorServer } from './server.ts';
import { DirectoryLogStore } from './store.ts';

const store = new DirectoryLogStore(mkdtempSync(join(tmpdir(), 'kd-store-')));
const run = { namespace: 'team', dagName: 'etl', dagRunId: 'r1' };
const app = operatorServer({ store, core: {} as CoreV1Api, registry: new Registry(), isLeader: () => true });
let url = '';

/** A step Pod that ended at `at`, as the archiver sees it. */
const ended = (at: string): V1Pod =>
  ({
    status: { containerStatuses: [{ name: 'step', state: { terminated: { exitCode: 0, finishedAt: new Date(at) } } }] },
  }) as V1Pod;

/** What a runner prints for its files: the sequence, then each file as od's hex lines. */
function lines(sequence: number, files: Record<string, string>): string {
  const hex = (text: string): string =>
    [...Buffer.from(text)].map((b) => ` ${b.toString(16).padStart(2, '0')}`).join('');
  return [
    `S ${String(sequence)}`,
    ...Object.entries(files).flatMap(([path, text]) => [`F ${String(Buffer.byteLength(text))} ${path}`, hex(text)]),
  ].join('\n');
}

async function archive(step: string, sequence: number, files: Record<string, string>): Promise<void> {
  const ref = logRefOf(run, step, 0);
  const { manifest } = keptArtifacts(ended('2026-11-29T10:00:00Z'), ref, lines(sequence, files));
  await store.write(ref, { stdout: '', stderr: '', artifacts: manifest });
}

beforeAll(async () => {
  // The later step first, and both ending in the same second: the sequence orders them.
  await archive('rewrite', 2, { 'data/t.csv': 'second' });
  await archive('write', 1, { 'data/t.csv': 'first', 'report.md': '# r' });
  await archive('other', 3, {});
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  await app.close();
});

describe("the operator's artifact endpoint", () => {
  it("lists a run's files from every attempt, the later write of a path winning", async () => {
    const answer = await fetch(`${url}/artifacts/team/etl/r1`);
    expect(await answer.json()).toEqual({
      files: [
        { path: 'data/t.csv', size: 6 },
        { path: 'report.md', size: 3 },
      ],
    });
  });

  it("answers one file's bytes, and 404 for a path the run has not", async () => {
    const file = await fetch(`${url}/artifacts/team/etl/r1?path=data%2Ft.csv`);
    expect([file.status, file.headers.get('content-type'), await file.text()]).toEqual([
      200,
      'application/octet-stream',
      'second',
    ]);
    expect((await fetch(`${url}/artifacts/team/etl/r1?path=nope`)).status).toBe(404);
  });

  it('lists nothing for a run without artifacts, and keeps them with the run until retention removes it', async () => {
    expect(await (await fetch(`${url}/artifacts/team/etl/r2`)).json()).toEqual({ files: [] });
    await store.removeRun('team', 'etl', 'r1');
    expect(await (await fetch(`${url}/artifacts/team/etl/r1`)).json()).toEqual({ files: [] });
  });
});
