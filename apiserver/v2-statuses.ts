/**
 * /api/v2 speaks Dagu 1.24's statuses, 0 to 6. A Dagu 2.x DAG's run can also wait for a person
 * (7, waiting) or end rejected (8); /api/v2 answers them as 1 (running) and 2 (failed), with
 * the labels of those, so a 1.24 client never reads a status it does not know. /api/v1 keeps
 * 7 and 8 (the shared handlers answer them; this runs only on /api/v2's routes).
 */
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { runStatusLabel, v2Status } from '../core/resources/status.ts';
import { API_PREFIX } from './paths.ts';
import { appendPreSerialization } from './responses.ts';

/** Whether an object is a status holder with a 2.x-only status. */
function holdsTwoXStatus(value: Record<string, unknown>): boolean {
  return typeof value.status === 'number' && v2Status(value.status) !== value.status;
}

/**
 * The answer with every `{status, statusLabel}` holder of 7 or 8 in /api/v2's numbers. Objects
 * and arrays without one are returned as they are (same reference), so an ordinary answer is
 * walked, never copied. Pure.
 */
export function v2Statuses(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(v2Statuses);
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  let changed: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(object)) {
    const mapped = v2Statuses(item);
    if (mapped !== item) (changed ??= { ...object })[key] = mapped;
  }
  if (holdsTwoXStatus(object)) {
    const status = v2Status(object.status as number);
    changed = { ...(changed ?? object), status };
    if (typeof object.statusLabel === 'string') changed.statusLabel = runStatusLabel(status);
  }
  return changed ?? value;
}

/** An `onRoute` hook's work: a route under /api/v2 maps its answers' statuses before they are sent. */
export function mapV2Statuses(route: RouteOptions): void {
  if (!route.url.startsWith(`${API_PREFIX}/`)) return;
  const map = (
    _request: FastifyRequest,
    _reply: FastifyReply,
    payload: unknown,
    done: (error: Error | null, payload?: unknown) => void,
  ): void => {
    done(null, v2Statuses(payload));
  };
  appendPreSerialization(route, map);
}
