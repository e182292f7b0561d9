/**
 * The run page's timeline. A run of thousands of steps would draw a row per step, a page taller
 * than anyone scrolls; past TIMELINE_PAGE rows it is paged like a list instead, each page's axis
 * fitted to its own steps (a page's bars would be slivers on the whole run's axis).
 */
import { useState, type ReactNode } from 'react';
import { clientPage } from '../../components/pages.ts';
import { Pager } from '../../components/Pager.tsx';
import { Timeline } from '../../components/timeline/Timeline.tsx';
import type { TimelineStep } from '../../components/timeline/geometry.ts';

/** Rows of one timeline page: a few screens of them. */
export const TIMELINE_PAGE = 100;

export function RunTimeline({
  steps,
  stepHref,
}: {
  readonly steps: readonly TimelineStep[];
  readonly stepHref: (step: TimelineStep) => string;
}): ReactNode {
  const [page, setPage] = useState(1);
  if (!steps.some((s) => s.startedAt !== '')) return <p className="muted">No step has started yet.</p>;
  const shown = clientPage(steps, page, TIMELINE_PAGE);
  return (
    <>
      <Timeline steps={shown.rows} stepHref={stepHref} live={shown.rows.some((s) => s.statusLabel === 'running')} />
      {shown.totalPages === 1 ? null : (
        <Pager
          page={shown.page}
          totalPages={shown.totalPages}
          totalRecords={shown.totalRecords}
          perPage={TIMELINE_PAGE}
          noun="steps"
          onPage={setPage}
          label="Pages of the timeline"
        />
      )}
    </>
  );
}
