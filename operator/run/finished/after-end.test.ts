/**
 * A finished run whose spec says nothing is owed after its end (`frozenDefinition.afterEnd:
 * false`, core/resources/frozen.ts asksAfterEnd) is never loaded by the finished-run
 * controller. This table holds that promise to what finished runs do: no container to remove, no trace, no mail.
 */
import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { asksAfterEnd } from '../../../core/resources/frozen.ts';
import { RunStatus, StepStatus } from '../../../core/resources/status.ts';
import type { DagRunResource } from '../../../core/resources/types.ts';
import { dagRun } from '../../../test/builders/dag-run.ts';
import { owedMails } from '../../notify/mails.ts';
import { removesContainer } from './container-cleanup.ts';
import { runDefinition } from '../decide/run-definition.ts';
import { traced } from '../pods/trace-context.ts';

const mail = { from: 'kubedag@example.com', to: 'ops@example.com' };
const smtp = { host: 'smtp.example.com', port: '25' };

const finished = (status: number): DagRunResource =>
  dagRun('r')
    .namespace('n')
    .status({
      status,
      finishedAt: '2026-11-28T10:00:00Z',
      nodes: [{ name: 's', status: StepStatus.Failed, statusLabel: 'failed', finishedAt: '2026-11-28T10:00:00Z' }],
    })
    .build();
const containerPod: V1Pod = { metadata: { name: 'r-container' } };

describe('a DAG that asks nothing after the end owes nothing after the end', () => {
  it.each([
    ['plain steps', { steps: [{ name: 's', command: 'false' }] }],
    [
      'otel turned off',
      { otel: { enabled: false, endpoint: 'http://collector:4318' }, steps: [{ name: 's', command: 'false' }] },
    ],
    [
      'mail settings without mailOn or mailOnError',
      { errorMail: mail, infoMail: mail, smtp, steps: [{ name: 's', command: 'false' }] },
    ],
    [
      'handlers (they run before the end)',
      {
        handlerOn: { failure: { command: 'echo' }, exit: { command: 'echo' } },
        steps: [{ name: 's', command: 'false' }],
      },
    ],
  ])('%s', (_what, spec) => {
    const definition = runDefinition(spec, 'd', undefined);
    expect(asksAfterEnd(definition.dag)).toBe(false);
    expect(traced(definition.dag)).toBe(false);
    for (const status of [RunStatus.Failed, RunStatus.Succeeded, RunStatus.PartiallySucceeded, RunStatus.Canceled]) {
      expect(owedMails(definition.dag, finished(status))).toEqual([]);
      expect(removesContainer(finished(status), definition, containerPod)).toBe(false);
    }
  });

  it.each([
    ['a trace', { otel: { enabled: true, endpoint: 'http://collector:4318' }, steps: ['true'] }],
    ['a mail after the run', { mailOn: { failure: true }, errorMail: mail, smtp, steps: ['false'] }],
    ["a step's mail", { errorMail: mail, smtp, steps: [{ name: 's', command: 'false', mailOnError: true }] }],
    ['a container', { container: { image: 'alpine' }, steps: ['true'] }],
  ])('while one owing %s asks', (_what, spec) => {
    expect(asksAfterEnd(runDefinition(spec, 'd', undefined).dag)).toBe(true);
  });
});
