/**
 * Drives the run engine (operator/run/decide/engine.ts) without a cluster, for unit tests: `dagOf`
 * loads a definition, `input` builds a snapshot, and `simulate` runs a whole run to its end,
 * every launched Pod reporting at once as a script says.
 */
import { load } from 'js-yaml';
import { stepPodName } from '../../core/resources/names.ts';
import type { DagRunStatus } from '../../core/resources/schemas.ts';
import type { AttemptReport } from '../../operator/run/decide/attempt-verdict.ts';
import { runDefinition, type RunDefinition } from '../../operator/run/decide/run-definition.ts';
import { decide, type Decision, type ObservedPod, type RunInput } from '../../operator/run/decide/engine.ts';

/** What each step attempt reports, by step name; a list gives one report per attempt. */
export type Script = Record<string, Partial<AttemptReport> | Partial<AttemptReport>[]>;

export const RUN = { name: 'scenario-1', dagRunId: 'r1' };

/** The Pod name the engine gives an attempt of the scenario run. */
export const pod = (step: string, attempt: number): string => stepPodName(RUN.name, step, attempt);

export function dagOf(yaml: string): RunDefinition {
  const definition = runDefinition(load(yaml) as Record<string, unknown>, 'scenario', undefined);
  if (definition.rejection !== undefined) throw new Error(`the scenario DAG is rejected: ${definition.rejection}`);
  return definition;
}

export function input(
  definition: RunDefinition,
  status: DagRunStatus,
  pods: ObservedPod[],
  now: Date,
  extra: Partial<RunInput> = {},
): RunInput {
  return { definition, run: RUN, status, stop: false, pods, expected: new Set(), now, maxRunningPods: 0, ...extra };
}

export interface Simulation {
  readonly status: DagRunStatus;
  readonly started: string[];
  readonly decisions: Decision[];
}

export const SIMULATION_START = '2026-01-01T00:00:00Z';

/** Runs the engine to the end: every launched Pod reports as the script says, at once; the clock moves to each requeue (else by a second). */
export function simulate(yaml: string, script: Script = {}, extra: Partial<RunInput> = {}): Simulation {
  const dag = dagOf(yaml);
  let status: DagRunStatus = {};
  let pods: ObservedPod[] = [];
  const started: string[] = [];
  const decisions: Decision[] = [];
  let clock = Date.parse(SIMULATION_START);
  for (let round = 0; round < 200; round += 1) {
    const decision = decide(input(dag, status, pods, new Date(clock), extra));
    decisions.push(decision);
    status = decision.status;
    for (const launch of decision.launch) {
      started.push(`${launch.step.name}#${String(launch.attempt)}`);
      const entry = script[launch.step.name] ?? {};
      const reports = Array.isArray(entry) ? entry : [entry];
      const report = {
        exitCode: 0,
        preconditionUnmet: false,
        ...(reports[Math.min(launch.attempt, reports.length - 1)] ?? {}),
      };
      pods = [
        ...pods,
        {
          name: launch.pod,
          step: launch.step.name,
          attempt: launch.attempt,
          phase: report.exitCode === 0 ? 'Succeeded' : 'Failed',
          deleting: false,
          report,
        },
      ];
    }
    if (status.finishedAt !== undefined && decision.launch.length === 0) break;
    clock += decision.requeueAfterMs ?? 1000;
  }
  return { status, started, decisions };
}
