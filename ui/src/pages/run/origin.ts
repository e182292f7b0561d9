/** Who started a run and who changed it since, in words for the run page (docs/audit.md). */

interface Requester {
  readonly user: string;
  readonly method: string;
}

/** What GET .../origin answers (queries.ts RunOrigin). */
export interface Origin {
  readonly trigger: string;
  readonly startedBy: Requester | null;
  readonly requestedBy: Requester | null;
}

/** What made a run that no person asked for, in words. */
const MADE_BY: Readonly<Record<string, string>> = {
  schedule: 'the scheduler',
  'sub-run': 'its parent run',
  restart: 'a restart',
  kubectl: 'a Kubernetes client',
  queue: 'the queue',
};

const named = (who: Requester): string => `${who.user} (${who.method})`;

/** Who started the run, and who changed it since when that was someone else (a stop, a retry). */
export function startedByText(origin: Origin): { readonly startedBy?: string; readonly changedBy?: string } {
  const startedBy = origin.startedBy === null ? MADE_BY[origin.trigger] : named(origin.startedBy);
  const changed = origin.requestedBy === null ? undefined : named(origin.requestedBy);
  return {
    ...(startedBy === undefined ? {} : { startedBy }),
    ...(changed === undefined || changed === startedBy ? {} : { changedBy: changed }),
  };
}
