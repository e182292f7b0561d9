/** Says the data on a page is live: when it was last fetched, and whether a refresh failed. */
import type { ReactNode } from 'react';
import { RelativeTime } from './Time.tsx';

export function LiveStatus({ updatedAt, failed }: { readonly updatedAt: number; readonly failed: boolean }): ReactNode {
  if (updatedAt === 0) return null;
  return (
    <p className={`live ${failed ? 'live-failed' : ''}`} aria-live="off">
      <span className="live-dot" aria-hidden="true" />
      <span>
        {failed ? 'Refresh failed; showing data from ' : 'Live · updated '}
        <RelativeTime at={updatedAt} />
      </span>
    </p>
  );
}
