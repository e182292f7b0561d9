/**
 * High availability without a shared volume: two operator replicas whose only log store is an
 * S3 bucket on a real S3-compatible server (MinIO). The leader archives the first steps' logs
 * and is killed (SIGKILL) mid-run; the standby takes over, finishes the run and archives the
 * rest; then every step's logs read back complete through the API server pointed at the
 * survivor's endpoint. A running step's log is served live by the standby too (any replica
 * answers the chart's Service).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from '../../apiserver/server.ts';
import { S3LogStore } from '../../operator/logs/s3-store.ts';
import { startApi } from './api-support.ts';
import {
  finishedRun,
  givenDag,
  runningStep,
  startOperator,
  stepStates,
  whenRun,
  type RunningOperator,
} from './operator-support.ts';
import { clients, createNamespace, deleteNamespace, waitFor } from './support.ts';
import { S3_SERVER_BUILD_MS, startS3Server, type S3Server } from '../../cluster/s3-server.ts';

const { core } = clients();
let ns = '';
let s3: S3Server | undefined;
let store: S3LogStore | undefined;
const replicas: RunningOperator[] = [];
let api: Server | undefined;

beforeAll(async () => {
  ns = await createNamespace(core, 'kd-s3');
  s3 = await startS3Server();
}, S3_SERVER_BUILD_MS);

afterAll(async () => {
  await api?.close();
  await Promise.all(replicas.map((r) => r.stop()));
  store?.destroy();
  await s3?.stop();
  await deleteNamespace(core, ns);
});

const DAG = [
  'steps:',
  '  - {name: extract, command: "sh -c \'echo extracted 3 rows; echo slow source >&2\'"}',
  '  - {name: transform, command: echo transformed, depends: extract}',
  '  - {name: load, command: "sh -c \'echo loading; sleep 8; echo loaded\'", depends: transform}',
  '  - {name: report, command: echo reported, depends: load}',
].join('\n');

/** What the API answers for a step's log: its content, or the error. */
async function stepLog(server: Server, step: string, stream = 'stdout'): Promise<{ status: number; content?: string }> {
  const res = await server.app.inject({
    method: 'GET',
    url: `/api/v2/dag-runs/etl/failover-1/steps/${step}/log?stream=${stream}`,
  });
  return { status: res.statusCode, content: res.json<{ content?: string }>().content };
}

describe('two operator replicas on the S3 log store', () => {
  it('lose no step log when the leader dies mid-run: the survivor serves every one through the API', async () => {
    const server = s3 as S3Server;
    const flags = server.operatorFlags('ha');
    const leader = await startOperator(ns, undefined, flags, true, server.env);
    const standby = await startOperator(ns, undefined, flags, false, server.env);
    replicas.push(leader, standby);
    Object.assign(process.env, server.env);
    store = await S3LogStore.open({
      kind: 's3',
      bucket: server.bucket,
      prefix: 'ha/',
      endpoint: server.endpoint,
      forcePathStyle: true,
    });
    const logRef = (step: string) => ({ namespace: ns, dagName: 'etl', dagRunId: 'failover-1', step, attempt: 0 });
    api = await startApi(ns, standby.url);

    await givenDag(ns, 'etl', DAG);
    await whenRun(ns, 'etl-failover', 'etl', { dagRunId: 'failover-1' });
    await runningStep(ns, 'etl-failover', 'load');
    // The leader archived the finished steps into the bucket before it dies.
    for (const step of ['extract', 'transform'])
      await waitFor(`${step}'s log in the bucket`, () => (store as S3LogStore).exists(logRef(step)), 10_000, 100);
    expect(await store.exists(logRef('load'))).toBe(false);
    // The standby, which leads nothing yet, serves the running step's log live.
    const live = api;
    await waitFor(
      'the live log of load through the standby',
      async () => (await stepLog(live, 'load')).content === 'loading',
      10_000,
      200,
    );

    await leader.stop('SIGKILL');
    await waitFor('the standby to lead', () => Promise.resolve(standby.output().includes('leading:')), 30_000, 100);
    const run = await finishedRun(ns, 'etl-failover', 60_000);
    expect([run.status?.statusLabel, stepStates(run)]).toEqual([
      'succeeded',
      { extract: 'succeeded', transform: 'succeeded', load: 'succeeded', report: 'succeeded' },
    ]);

    for (const step of ['load', 'report'])
      await waitFor(`${step}'s log in the bucket`, () => (store as S3LogStore).exists(logRef(step)), 10_000, 100);
    expect([
      await stepLog(live, 'extract'),
      await stepLog(live, 'extract', 'stderr'),
      await stepLog(live, 'transform'),
      await stepLog(live, 'load'),
      await stepLog(live, 'report'),
    ]).toEqual([
      { status: 200, content: 'extracted 3 rows' },
      { status: 200, content: 'slow source' },
      { status: 200, content: 'transformed' },
      { status: 200, content: 'loading\nloaded' },
      { status: 200, content: 'reported' },
    ]);
    // No request to the bucket failed on either replica along the way.
    expect(leader.output() + standby.output()).not.toContain('S3 log store');
  });
});
