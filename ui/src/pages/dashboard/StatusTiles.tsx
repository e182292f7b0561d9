/** The period's runs by status, each number a link to those runs on the runs page. */
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { statusLook } from '../../lib/status.ts';
import type { Period } from '../runs/period.ts';
import { runsHref } from '../runs/run-params.ts';
import { SERIES } from './buckets.ts';

/** Always shown, even at zero: a dashboard that hides "0 failed" hides good news. */
const ALWAYS = new Set([4, 2, 1, 5]);
const count = new Intl.NumberFormat('en');

export function StatusTiles({
  counts,
  period,
}: {
  readonly counts: ReadonlyMap<number, number>;
  readonly period: Period;
}): ReactNode {
  let total = 0;
  for (const n of counts.values()) total += n;
  const shown = [...SERIES]
    .sort((a, b) => [4, 2, 1, 5, 6, 3, 0].indexOf(a.status) - [4, 2, 1, 5, 6, 3, 0].indexOf(b.status))
    .filter((s) => ALWAYS.has(s.status) || (counts.get(s.status) ?? 0) > 0);
  return (
    <ul className="tiles" aria-label="Runs by status">
      <li>
        <Link to={runsHref({ period })} className="tile">
          <span className="tile-number">{count.format(total)}</span>
          <span className="tile-label">{total === 1 ? 'Run' : 'Runs'}</span>
        </Link>
      </li>
      {shown.map((s) => {
        const look = statusLook(s.label, s.status);
        return (
          <li key={s.status}>
            <Link to={runsHref({ period, status: s.status })} className={`tile tone-${look.tone}`}>
              <span className="tile-number">{count.format(counts.get(s.status) ?? 0)}</span>
              <span className="tile-label">
                <span className="status-dot" aria-hidden="true" />
                {look.text}
              </span>
            </Link>
          </li>
        );
      })}
    </ul>
  );
}
