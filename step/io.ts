/**
 * What an executor of the step runner works with: the step's streams, its environment (what
 * `${VAR}` references in its settings expand from), its working directory and a signal that
 * aborts when the step is stopped.
 */
import { expand } from '../core/dag/index.ts';

export interface StepIO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string>>;
  /** Relative paths in settings (attachments, key files) resolve against it. */
  readonly cwd: string;
  /** Aborted when the step is stopped (the Pod's runner forwards the stop signal). */
  readonly signal: AbortSignal;
}

/** `${VAR}` and `$VAR` in a setting, from the step's environment; unknown names stay as written. */
export function expandSetting(text: string, env: Readonly<Record<string, string>>): string {
  return expand(text, { scopes: [env] }).value;
}
