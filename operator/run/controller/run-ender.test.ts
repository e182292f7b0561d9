import { describe, expect, it } from 'vitest';
import type { Informer } from '../../../core/kube/informer.ts';
import { silentLogger } from '../../../core/log.ts';
import type { DagRunStatus } from '../../../core/resources/schemas.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { dagOf, input, pod } from '../../../test/builders/run-engine.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { decide } from '../decide/engine.ts';
import type { PodWriter } from '../shared/pod-writer.ts';
import { RunEnder } from './run-ender.ts';
import type { RunWriter } from '../shared/status-writer.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const status = (code: number, message: string): Error =>
  Object.assign(new Error(`HTTP-Code: ${String(code)}`), {
    code,
    body: JSON.stringify({ kind: 'Status', code, message }),
  });
const TOO_LARGE = status(500, 'etcdserver: request is too large');
const WEBHOOK_DOWN = status(500, 'failed calling webhook "w": connection refused');

/** A writer whose status writes answer, in turn, as `answers` says (an error, or true for written). */
function fakes(answers: (Error | boolean)[], annotation?: Error) {
  const calls: string[] = [];
  const writer = {
    writeStatus: (_run: DagRunResource, next: DagRunStatus): Promise<boolean> => {
      calls.push(`status:${next.nodes === undefined ? 'progress' : 'steps'}`);
      const answer = answers.shift() ?? true;
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
    recordEnd: (): Promise<void> => {
      calls.push('annotation');
      return annotation === undefined ? Promise.resolve() : Promise.reject(annotation);
    },
    requestStop: (_ns: string, name: string): Promise<void> => {
      calls.push(`stop-run:${name}`);
      return Promise.resolve();
    },
    event: (_run: DagRunResource, reason: string): void => {
      calls.push(`event:${reason}`);
    },
  } as unknown as RunWriter;
  const pods = {
    stop: (_ns: string, name: string): Promise<void> => {
      calls.push(`stop:${name}`);
      return Promise.resolve();
    },
  } as unknown as PodWriter;
  const runs = { get: () => undefined } as unknown as Informer<DagRunResource>;
  return { calls, ender: new RunEnder({ runs, writer, pods, clock: { now: () => NOW }, log: silentLogger }) };
}

const RUN = dagRun('scenario-1').namespace('n').build();
const DAG = dagOf('type: graph\nsteps: [{name: a, command: x}, {name: b, command: x}]');
const started = decide(input(DAG, {}, [], NOW));
const running = input(
  DAG,
  started.status,
  [{ name: pod('a', 0), step: 'a', attempt: 0, phase: 'Running', deleting: false }],
  NOW,
);

describe('a failed status write', () => {
  const cases: {
    name: string;
    error: Error;
    stop?: boolean;
    answers: (Error | boolean)[];
    annotation?: Error;
    want: string[];
    throws: boolean;
  }[] = [
    {
      name: 'a conflict is thrown on, to decide again',
      error: status(409, 'conflict'),
      answers: [],
      want: [],
      throws: true,
    },
    {
      name: 'a refusal that may pass is thrown on, to retry with backoff',
      error: WEBHOOK_DOWN,
      answers: [],
      want: [],
      throws: true,
    },
    {
      name: 'a refusal for good stops the attempts, then writes step names and statuses',
      error: TOO_LARGE,
      answers: [true],
      want: [`stop:${pod('a', 0)}`, `stop:${pod('b', 0)}`, 'status:steps', 'event:StatusRefused'],
      throws: false,
    },
    {
      name: 'when those are refused too, the progress alone',
      error: TOO_LARGE,
      answers: [TOO_LARGE, true],
      want: [`stop:${pod('a', 0)}`, `stop:${pod('b', 0)}`, 'status:steps', 'status:progress', 'event:StatusRefused'],
      throws: false,
    },
    {
      name: 'when no status is taken, the annotation',
      error: TOO_LARGE,
      answers: [TOO_LARGE, TOO_LARGE],
      want: [
        `stop:${pod('a', 0)}`,
        `stop:${pod('b', 0)}`,
        'status:steps',
        'status:progress',
        'annotation',
        'event:StatusRefused',
      ],
      throws: false,
    },
    {
      name: 'when not even the annotation is taken, the Event says why and the write is retried',
      error: TOO_LARGE,
      answers: [TOO_LARGE, TOO_LARGE],
      annotation: status(403, 'denied'),
      want: [
        `stop:${pod('a', 0)}`,
        `stop:${pod('b', 0)}`,
        'status:steps',
        'status:progress',
        'annotation',
        'event:StatusRefused',
      ],
      throws: true,
    },
    {
      name: 'a smaller status meeting a conflict leaves the run to the next decision',
      error: TOO_LARGE,
      answers: [false],
      want: [`stop:${pod('a', 0)}`, `stop:${pod('b', 0)}`, 'status:steps'],
      throws: false,
    },
    {
      name: 'a stop does not wait for a refusal that may pass',
      error: WEBHOOK_DOWN,
      stop: true,
      answers: [WEBHOOK_DOWN, WEBHOOK_DOWN],
      want: [
        `stop:${pod('a', 0)}`,
        `stop:${pod('b', 0)}`,
        'status:steps',
        'status:progress',
        'annotation',
        'event:StopWithoutStatus',
      ],
      throws: false,
    },
  ];
  it.each(cases)('$name', async ({ error, stop, answers, annotation, want, throws }) => {
    const { calls, ender } = fakes(answers, annotation);
    const snapshot = { ...running, stop: stop === true };
    const result = ender.afterFailedWrite(RUN, snapshot, started, error);
    if (throws) await expect(result).rejects.toBe(error);
    else await result;
    expect(calls).toEqual(want);
  });
});
