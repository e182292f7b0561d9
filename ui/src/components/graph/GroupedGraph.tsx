/**
 * A step graph too big to draw box by box (big-graph.ts decides): its steps counted by status,
 * each group a button when the page can list that group's steps (the run page filters its step
 * table), and on request a drawing of WINDOW_STEPS steps at a time, paged like a list. Nothing
 * here lays out more than one window, whatever the graph's size.
 */
import { useState, type ReactNode } from 'react';
import { statusLook } from '../../lib/status.ts';
import { Pager } from '../Pager.tsx';
import { graphWindow, statusGroups, WINDOW_STEPS, DRAWN_MAX, type StatusGroup } from './big-graph.ts';
import type { GraphStep } from './layout.ts';

const count = new Intl.NumberFormat('en');

interface GroupedGraphProps {
  readonly steps: readonly GraphStep[];
  readonly label: string;
  /** Shows a group's steps elsewhere (the step table); without it the groups are a picture only. */
  readonly onGroup?: (status: string) => void;
  /** Draws one window of steps: the drawn graph, given only these. */
  readonly drawWindow: (steps: readonly GraphStep[], caption: string) => ReactNode;
  /** The handlers' row, drawn beneath as for any graph. */
  readonly handlers: ReactNode;
}

const groupText = (group: StatusGroup): string => (group.status === '' ? 'No status' : statusLook(group.status).text);

function Groups({
  groups,
  total,
  onGroup,
}: {
  readonly groups: readonly StatusGroup[];
  readonly total: number;
  readonly onGroup?: (status: string) => void;
}): ReactNode {
  return (
    <ul className="graph-groups" aria-label="Steps by status">
      {groups.map((group) => {
        const tone = group.status === '' ? 'none' : statusLook(group.status).tone;
        const share = `${String(Math.max(1, Math.round((group.count / total) * 100)))}%`;
        const content = (
          <>
            <span className="graph-node-name">
              <span className="graph-node-dot" aria-hidden="true" />
              {groupText(group)}
            </span>
            <span className="graph-group-count">{count.format(group.count)}</span>
            <span className="graph-group-share" aria-hidden="true">
              <span style={{ width: share }} />
            </span>
          </>
        );
        return (
          <li key={group.status} className="graph-group-tile" data-tone={tone} data-status={group.status}>
            {onGroup === undefined ? (
              <div className="graph-group-body">{content}</div>
            ) : (
              <button
                type="button"
                className="graph-group-body"
                onClick={() => {
                  onGroup(group.status);
                }}
                title={`List the ${groupText(group).toLowerCase()} steps in the table`}
              >
                {content}
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}

export function GroupedGraph({ steps, label, onGroup, drawWindow, handlers }: GroupedGraphProps): ReactNode {
  // The window drawn, or none: drawing is the user's choice, since even a window takes a moment.
  const [page, setPage] = useState<number | undefined>();
  const groups = statusGroups(steps);
  const shown = page === undefined ? undefined : graphWindow(steps, page);
  return (
    <div className="step-graph step-graph-grouped" role="group" aria-label={label}>
      <p className="graph-note" role="note">
        <strong>{count.format(steps.length)} steps</strong> are too many to draw one box each (the graph draws up to{' '}
        {DRAWN_MAX}), so they are counted by status here
        {onGroup === undefined ? '' : '; choose a status to list its steps in the table below'}.
      </p>
      <Groups groups={groups} total={steps.length} onGroup={onGroup} />
      {shown === undefined ? (
        <p>
          <button
            type="button"
            className="button"
            onClick={() => {
              setPage(1);
            }}
          >
            Draw steps 1–{Math.min(WINDOW_STEPS, steps.length)}
          </button>{' '}
          <span className="muted">{WINDOW_STEPS} at a time, in the order they are defined</span>
        </p>
      ) : (
        <div className="graph-window">
          <div className="graph-window-bar">
            <Pager
              page={shown.page}
              totalPages={shown.windows}
              totalRecords={steps.length}
              perPage={WINDOW_STEPS}
              noun="steps"
              onPage={setPage}
              label="Windows of the graph"
            />
            <button
              type="button"
              className="button button-quiet"
              onClick={() => {
                setPage(undefined);
              }}
            >
              Hide the drawing
            </button>
          </div>
          {shown.cut === 0 ? null : (
            <p className="muted graph-cut">
              {count.format(shown.cut)} {shown.cut === 1 ? 'arrow joins' : 'arrows join'} these steps to steps outside
              the window and {shown.cut === 1 ? 'is' : 'are'} not drawn.
            </p>
          )}
          {drawWindow(
            shown.steps,
            `Steps ${count.format(shown.first)}–${count.format(shown.last)} of ${count.format(steps.length)}`,
          )}
        </div>
      )}
      {handlers}
    </div>
  );
}
