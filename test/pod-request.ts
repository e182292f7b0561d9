import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { loadDag, type Step } from '../core/dag/index.ts';
import type { PodRequest } from '../operator/run/pods/step-pod.ts';

/** What launch hands stepPod for the first step of a file that loads without errors (no workspace). */
export function podRequestOf(yaml: string, overrides: Partial<PodRequest> = {}): PodRequest {
  const load = loadDag(yaml, { fileName: 'pods' });
  expect(load.errors).toEqual([]);
  const step = load.dag.steps[0] as Step;
  return {
    run: { name: 'pods-r1-abc', namespace: 'team', uid: 'uid-1', dagName: 'pods', dagRunId: 'r1' },
    dag: load.dag,
    step,
    attempt: 0,
    pod: 'pods-step-0',
    env: [],
    positional: [],
    ...(step.cmdWithArgs === undefined ? {} : { command: step.cmdWithArgs }),
    defaultImage: 'busybox:1.36',
    podPreconditions: [],
    logDir: join(mkdtempSync(join(tmpdir(), 'kd-logs-')), 'logs'),
    ...overrides,
  };
}
