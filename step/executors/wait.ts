/**
 * Dagu 2.x's wait executor (the `wait.duration`, `wait.until`, `wait.file` and `wait.http`
 * actions), as v2.15.1 runs it (internal/runtime/builtin/wait): the command is the operation,
 * the settings say what to wait for. It writes nothing; it succeeds when the wait is over and
 * fails on a bad setting or an error other than "not there yet". A stop or the step's timeout
 * (both reach the runner as a signal, which aborts `io.signal`) ends the wait at once: the
 * runner holds nothing but a timer and, for http, one request at a time.
 *
 * `waitPlan` reads the settings (pure, Dagu's messages); `runWait` carries the plan out.
 */
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { BUILTIN_KEYS, operationOf } from '../../core/dag/builtin-executors.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { goDurationMs } from '../go-duration.ts';
import type { StepIO } from '../io.ts';
import { intSetting, mapSetting, SettingError, textSetting } from '../settings.ts';

type Env = Readonly<Record<string, string>>;

interface Polling {
  readonly pollMs: number;
}

export type WaitPlan =
  | { readonly kind: 'duration'; readonly ms: number }
  | { readonly kind: 'until'; readonly at: number }
  | (Polling & { readonly kind: 'file'; readonly path: string; readonly state: 'exists' | 'missing' })
  | (Polling & {
      readonly kind: 'http';
      readonly url: string;
      readonly method: string;
      readonly status: number;
      readonly headers: Readonly<Record<string, string>>;
      readonly body: string;
      readonly requestTimeoutMs: number;
    });

/** time.RFC3339Nano as time.Parse reads it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

function positiveDuration(field: string, value: string): number {
  const text = value.trim();
  if (text === '') throw new SettingError(`wait: ${field} must not be empty`);
  const ms = goDurationMs(text);
  if (ms === undefined)
    throw new SettingError(`wait: ${field} must be a duration: invalid duration ${JSON.stringify(text)}`);
  if (ms <= 0) throw new SettingError(`wait: ${field} must be greater than 0`);
  return ms;
}

function required(config: Readonly<Record<string, unknown>>, key: string, operation: string, env: Env): string {
  const value = textSetting(config, key, env) ?? '';
  if (value.trim() === '') throw new SettingError(`wait: ${key} is required for ${operation}`);
  return value.trim();
}

/** The wait a step describes, its settings expanded from the step's environment; a SettingError when wrong. */
export function waitPlan(spec: ExecutorSpec, env: Env, cwd: string): WaitPlan {
  const { config } = spec;
  const stray = Object.keys(config).filter((key) => !BUILTIN_KEYS.wait.includes(key));
  if (stray.length > 0) throw new SettingError(`wait: unknown settings: ${stray.join(', ')}`);
  const pollMs = positiveDuration('poll_interval', textSetting(config, 'poll_interval', env) ?? '1s');
  const requestTimeoutMs = positiveDuration('request_timeout', textSetting(config, 'request_timeout', env) ?? '10s');
  const operation = operationOf(spec.command);
  switch (operation) {
    case 'duration':
      return { kind: 'duration', ms: positiveDuration('duration', required(config, 'duration', operation, env)) };
    case 'until': {
      const until = required(config, 'until', operation, env);
      const at = RFC3339.test(until) ? Date.parse(until) : Number.NaN;
      if (Number.isNaN(at)) throw new SettingError(`wait: until must be RFC3339 timestamp: ${JSON.stringify(until)}`);
      return { kind: 'until', at };
    }
    case 'file': {
      const path = required(config, 'path', operation, env);
      const state = textSetting(config, 'state', env) ?? 'exists';
      if (state !== 'exists' && state !== 'missing')
        throw new SettingError('wait: state must be "exists" or "missing"');
      return { kind: 'file', path: isAbsolute(path) ? path : join(cwd, path), state, pollMs };
    }
    case 'http':
      return httpPlan(config, env, pollMs, requestTimeoutMs);
    default:
      throw new SettingError(`wait: unsupported operation ${JSON.stringify(operation)}`);
  }
}

function httpPlan(
  config: Readonly<Record<string, unknown>>,
  env: Env,
  pollMs: number,
  requestTimeoutMs: number,
): WaitPlan {
  const url = required(config, 'url', 'http', env);
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.host === '')
    throw new SettingError('wait: url must be an absolute HTTP URL');
  const method = textSetting(config, 'method', env) ?? 'GET';
  if (method.trim() === '') throw new SettingError('wait: method must not be empty');
  const status = config.status === undefined ? 200 : intSetting(config, 'status', env);
  if (status < 100 || status > 599) throw new SettingError('wait: status must be between 100 and 599');
  return {
    kind: 'http',
    url,
    method: method.toUpperCase(),
    status,
    headers: mapSetting(config, 'headers', env),
    body: textSetting(config, 'body', env) ?? '',
    pollMs,
    requestTimeoutMs,
  };
}

/** Timers hold at most about 24.8 days; a longer wait sleeps in such pieces. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleeps until `deadline` (epoch ms) or the stop, whichever comes first. */
async function sleepUntil(deadline: number, signal: AbortSignal, now: () => number): Promise<void> {
  for (let left = deadline - now(); left > 0; left = deadline - now())
    await sleep(Math.min(left, MAX_TIMER_MS), undefined, { signal });
  signal.throwIfAborted();
}

/** Checks until one says the wait is over, `pollMs` apart; a check's error ends the wait as a failure. */
async function poll(pollMs: number, signal: AbortSignal, check: () => Promise<boolean>): Promise<void> {
  for (;;) {
    signal.throwIfAborted();
    if (await check()) return;
    await sleep(pollMs, undefined, { signal });
  }
}

async function fileReady(path: string, state: 'exists' | 'missing'): Promise<boolean> {
  try {
    await stat(path);
    return state === 'exists';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR')
      return state === 'missing';
    throw error;
  }
}

type HttpPlan = Extract<WaitPlan, { kind: 'http' }>;

/** One request; any failure to get an answer (refused, timed out) means "not yet", as in Dagu. */
async function httpReady(plan: HttpPlan, stop: AbortSignal): Promise<boolean> {
  try {
    const response = await request(plan.url, {
      method: plan.method,
      headers: plan.headers,
      ...(plan.body === '' ? {} : { body: plan.body }),
      signal: AbortSignal.any([stop, AbortSignal.timeout(plan.requestTimeoutMs)]),
    });
    await response.body.dump();
    return response.statusCode === plan.status;
  } catch {
    stop.throwIfAborted();
    return false;
  }
}

export async function runWait(spec: ExecutorSpec, io: StepIO, now: () => number = Date.now): Promise<number> {
  const plan = waitPlan(spec, io.env, io.cwd);
  switch (plan.kind) {
    case 'duration':
      await sleepUntil(now() + plan.ms, io.signal, now);
      break;
    case 'until':
      await sleepUntil(plan.at, io.signal, now);
      break;
    case 'file':
      await poll(plan.pollMs, io.signal, () => fileReady(plan.path, plan.state));
      break;
    case 'http':
      await poll(plan.pollMs, io.signal, () => httpReady(plan, io.signal));
      break;
  }
  return 0;
}
