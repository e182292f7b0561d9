import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { loadDag } from '../../core/dag/index.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { DagRunResource } from '../../core/resources/types.ts';
import { dagRun } from '../../test/builders/dag-run.ts';
import { TELEMETRY_COMMAND, telemetryPodName } from './pod.ts';
import { decideTelemetry, type TelemetryAction } from './reconciler.ts';

const traced = loadDag(
  'otel: {enabled: true, endpoint: "c:4318/v1/traces", insecure: true}\nsteps:\n  - command: make\n',
  { fileName: 'etl' },
).dag;
const untraced = loadDag('steps:\n  - command: make\n', { fileName: 'etl' }).dag;
const ended: DagRunStatus = {
  status: 4,
  statusLabel: 'succeeded',
  startedAt: '2026-11-24T10:00:00Z',
  finishedAt: '2026-11-24T10:00:05Z',
  nodes: [],
};

const run = (status: DagRunStatus): DagRunResource =>
  dagRun('etl-1').namespace('default').uid('u1').spec({ dagName: 'etl', dagRunId: 'r1' }).status(status).build();
function pod(phase: string, extra: Partial<NonNullable<V1Pod['metadata']>> = {}): V1Pod {
  return {
    metadata: { name: telemetryPodName(run(ended)), ...extra },
    status: {
      phase,
      containerStatuses: [
        {
          name: 'telemetry',
          image: '',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, message: 'connection refused' } },
        },
      ],
    },
  };
}
const NAME = telemetryPodName(run(ended));
const kind = (action: TelemetryAction): unknown =>
  action.kind === 'create' ? { kind: 'create', name: action.pod.metadata?.name } : action;

describe('decideTelemetry exports each execution of a traced run once', () => {
  const cases: { name: string; status: DagRunStatus; dag?: typeof traced; pod?: V1Pod; want: unknown }[] = [
    { name: 'a running run exports nothing yet', status: { ...ended, finishedAt: undefined }, want: { kind: 'none' } },
    { name: 'a finished run without otel exports nothing', status: ended, dag: untraced, want: { kind: 'none' } },
    { name: 'a finished traced run gets its telemetry Pod', status: ended, want: { kind: 'create', name: NAME } },
    { name: 'a running telemetry Pod is waited for', status: ended, pod: pod('Running'), want: { kind: 'none' } },
    {
      name: 'a Pod that succeeded is recorded as exported',
      status: ended,
      pod: pod('Succeeded'),
      want: { kind: 'record', telemetry: { token: '', state: 'exported' } },
    },
    {
      name: 'a Pod that failed is recorded with why, and not started again',
      status: ended,
      pod: pod('Failed'),
      want: {
        kind: 'record',
        telemetry: {
          token: '',
          state: 'failed',
          message: `the telemetry Pod ${NAME} failed (exit code 1): connection refused`,
        },
      },
    },
    {
      name: 'once recorded, the Pod is removed',
      status: { ...ended, telemetry: { token: '', state: 'exported' } },
      pod: pod('Succeeded'),
      want: { kind: 'delete', pod: NAME },
    },
    {
      name: 'once recorded and the Pod gone, nothing is sent again',
      status: { ...ended, telemetry: { token: '', state: 'exported' } },
      want: { kind: 'none' },
    },
    {
      name: 'a Pod already being deleted is left to go',
      status: { ...ended, telemetry: { token: '', state: 'failed' } },
      pod: pod('Failed', { deletionTimestamp: new Date() }),
      want: { kind: 'none' },
    },
    {
      name: 'a retry in place that finished exports its own trace',
      status: { ...ended, retryToken: 't2', telemetry: { token: '', state: 'exported' } },
      want: { kind: 'create', name: telemetryPodName(run({ ...ended, retryToken: 't2' })) },
    },
  ];
  it.each(cases)('$name', ({ status, dag, pod: found, want }) => {
    expect(
      kind(
        decideTelemetry({
          run: run(status),
          dag: dag ?? traced,
          pod: found,
          runner: { image: 'kubedag:test', command: TELEMETRY_COMMAND },
          steps: { security: 'restricted', user: 1000 },
        }),
      ),
    ).toEqual(want);
  });
});
