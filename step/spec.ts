/** Reading the ExecutorSpec the operator put in $KUBEDAG_EXECUTOR, with errors that say what is wrong. */
import { EXECUTOR_ENV, RUNNER_EXECUTORS, type ExecutorSpec } from '../core/runner/spec.ts';
import { SettingError } from './settings.ts';

export function parseExecutorSpec(text: string | undefined): ExecutorSpec {
  if (text === undefined || text === '')
    throw new SettingError(`${EXECUTOR_ENV} is not set: it carries the step's executor as JSON`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SettingError(`${EXECUTOR_ENV} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new SettingError(`${EXECUTOR_ENV} must be a JSON object`);
  const spec = value as Record<string, unknown>;
  if (!(RUNNER_EXECUTORS as readonly unknown[]).includes(spec.type))
    throw new SettingError(
      `${EXECUTOR_ENV}: unknown executor type ${JSON.stringify(spec.type)} (known: ${RUNNER_EXECUTORS.join(', ')})`,
    );
  for (const key of ['command', 'script'] as const) {
    if (spec[key] !== undefined && typeof spec[key] !== 'string')
      throw new SettingError(`${EXECUTOR_ENV}: ${key} must be text`);
  }
  const config: unknown = spec.config ?? {};
  if (config === null || typeof config !== 'object' || Array.isArray(config))
    throw new SettingError(`${EXECUTOR_ENV}: config must be a JSON object`);
  return { ...(spec as unknown as ExecutorSpec), config: config as Record<string, unknown> };
}
