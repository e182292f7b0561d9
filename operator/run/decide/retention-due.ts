/** Retention of finished runs (histRetentionDays). Pure. */

const DAY_MS = 86_400_000;

/** When a run that finished at `finishedAt` is past `days` of retention (ms since the epoch); undefined: never. */
export function retentionDue(finishedAt: string | undefined, days: number): number | undefined {
  if (finishedAt === undefined || days <= 0) return undefined;
  return Date.parse(finishedAt) + days * DAY_MS;
}

/** Whether a run that finished at `finishedAt` is past `days` of retention at `now`. */
export function retentionExpired(finishedAt: string | undefined, days: number, now: Date): boolean {
  const due = retentionDue(finishedAt, days);
  return due !== undefined && due <= now.getTime();
}
