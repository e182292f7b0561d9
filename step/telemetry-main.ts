/**
 * `runTelemetry` as a program of its own, for the local cluster until `kubedag-step telemetry`
 * (step/main.ts) is on the node agents' PATH: the operator's `--telemetry-command` names it.
 */
import { runTelemetry } from './telemetry.ts';

const env = Object.fromEntries(Object.entries(process.env).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])));
try {
  process.exitCode = await runTelemetry({ stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd(), signal: new AbortController().signal });
} catch (error) {
  process.stderr.write(`kubedag-step telemetry: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
