import { Cron } from 'croner';
import { childPath, issue, type DagIssue } from './issues.ts';
import type { Schedule, Schedules } from './model.ts';

const ZONE_PREFIX = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/;

/** Parses one expression such as `CRON_TZ=Asia/Tokyo 0 9 * * MON-FRI`. */
export function parseSchedule(expression: string): { schedule?: Schedule; error?: string } {
  const trimmed = expression.trim();
  const prefixed = ZONE_PREFIX.exec(trimmed);
  const timezone = prefixed?.[1];
  const cron = (prefixed?.[2] ?? trimmed).trim().split(/\s+/).join(' ');
  if (timezone !== undefined && !isTimeZone(timezone)) return { error: `unknown time zone "${timezone}"` };
  if (cron.startsWith('@'))
    return { error: `"${cron}": descriptors such as @daily are not supported; write the 5 cron fields` };
  const fields = cron === '' ? 0 : cron.split(' ').length;
  if (fields !== 5)
    return {
      error: `"${cron}": a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields}`,
    };
  try {
    new Cron(cron, { paused: true, mode: '5-part', ...(timezone === undefined ? {} : { timezone }) });
  } catch (error) {
    return { error: `"${cron}": ${(error as Error).message.replace(/^CronPattern: /, '')}` };
  }
  return { schedule: { expression: trimmed, cron, ...(timezone === undefined ? {} : { timezone }) } };
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

type ScheduleInput =
  | string
  | readonly string[]
  | { start?: string | readonly string[]; stop?: string | readonly string[]; restart?: string | readonly string[] }
  | undefined;

/** Normalises the three accepted forms of `schedule` into start/stop/restart lists. */
export function parseSchedules(input: ScheduleInput, path: string): { schedules: Schedules; errors: DagIssue[] } {
  const errors: DagIssue[] = [];
  const list = (value: string | readonly string[] | undefined, at: string): Schedule[] => {
    if (value === undefined) return [];
    const items = typeof value === 'string' ? [value] : value;
    return items.flatMap((expression, i) => {
      const parsed = parseSchedule(expression);
      if (parsed.error !== undefined)
        errors.push(issue(typeof value === 'string' ? at : childPath(at, i), parsed.error));
      return parsed.schedule === undefined ? [] : [parsed.schedule];
    });
  };
  if (input === undefined || typeof input === 'string' || Array.isArray(input)) {
    return {
      schedules: { start: list(input as string | readonly string[] | undefined, path), stop: [], restart: [] },
      errors,
    };
  }
  const form = input as Exclude<ScheduleInput, string | readonly string[] | undefined>;
  const schedules = {
    start: list(form.start, childPath(path, 'start')),
    stop: list(form.stop, childPath(path, 'stop')),
    restart: list(form.restart, childPath(path, 'restart')),
  };
  return { schedules, errors };
}

/**
 * The next `count` times a schedule fires strictly after `from`, in its own zone (or
 * `defaultZone`). Used by the scheduler and by the API's `nextRun` sort.
 */
export function nextFireTimes(schedule: Schedule, from: Date, count: number, defaultZone = 'UTC'): Date[] {
  const cron = new Cron(schedule.cron, { paused: true, mode: '5-part', timezone: schedule.timezone ?? defaultZone });
  return cron.nextRuns(count, from);
}

/** The earliest next start of any of a DAG's start schedules, or undefined when it has none. */
export function nextStart(schedules: Schedules, from: Date, defaultZone = 'UTC'): Date | undefined {
  let earliest: Date | undefined;
  for (const schedule of schedules.start) {
    const [next] = nextFireTimes(schedule, from, 1, defaultZone);
    if (next !== undefined && (earliest === undefined || next < earliest)) earliest = next;
  }
  return earliest;
}
