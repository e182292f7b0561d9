/** Retention of finished runs (histRetentionDays). Pure. */

/** Whether a run that finished at `finishedAt` is past `days` of retention at `now`. */
export function retentionExpired(finishedAt: string | undefined, days: number, now: Date): boolean {
  if (finishedAt === undefined || days <= 0) return false;
  return Date.parse(finishedAt) + days * 86_400_000 <= now.getTime();
}

