/**
 * Runs per hour (today) or per day, stacked by status, in plain SVG. The bars stretch with the
 * card (the SVG's aspect is not kept); the axis labels are HTML beside it, so text never
 * stretches. Each bar's numbers are in its tooltip, and all of them in a table below.
 */
import type { ReactNode } from 'react';
import { statusLook } from '../../lib/status.ts';
import { gridStep, SERIES, type Bucket, type Unit } from './buckets.ts';

const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric' });
const dateLabel = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const hourLabel = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const longLabel = new Intl.DateTimeFormat(undefined, { weekday: 'long', day: 'numeric', month: 'long' });

/** How a bucket is named under its bar; '' where the axis leaves it out to keep room. */
function axisLabel(bucket: Bucket, index: number, count: number, unit: Unit): string {
  if (unit === 'hour') return index % 6 === 0 ? hourLabel.format(bucket.start) : '';
  if (count <= 14) return dayLabel.format(bucket.start);
  // Every fifth day, counted back from today, so the latest day is always named.
  return (count - 1 - index) % 5 === 0 ? dateLabel.format(bucket.start) : '';
}

function bucketName(bucket: Bucket, unit: Unit): string {
  return unit === 'hour'
    ? `${hourLabel.format(bucket.start)}–${hourLabel.format(bucket.end)}`
    : longLabel.format(bucket.start);
}

function describe(bucket: Bucket): string {
  if (bucket.total === 0) return 'no runs';
  const parts = SERIES.filter((s) => (bucket.counts.get(s.status) ?? 0) > 0).map(
    (s) => `${String(bucket.counts.get(s.status))} ${statusLook(s.label, s.status).text.toLowerCase()}`,
  );
  return `${String(bucket.total)} ${bucket.total === 1 ? 'run' : 'runs'}: ${parts.join(', ')}`;
}

function Bars({
  buckets,
  top,
  unit,
}: {
  readonly buckets: readonly Bucket[];
  readonly top: number;
  readonly unit: Unit;
}): ReactNode {
  return buckets.map((bucket, index) => {
    let y = 100;
    return (
      <g key={bucket.start} className="chart-bar">
        <title>{`${bucketName(bucket, unit)}: ${describe(bucket)}`}</title>
        {/* The whole column takes the pointer, so a short bar's tooltip is easy to reach. */}
        <rect className="chart-hit" x={index} y={0} width={1} height={100} />
        {SERIES.map((s) => {
          const n = bucket.counts.get(s.status) ?? 0;
          if (n === 0) return null;
          const height = (n / top) * 100;
          y -= height;
          return (
            <rect
              key={s.status}
              className={`chart-segment tone-${statusLook(s.label, s.status).tone}`}
              x={index + 0.16}
              y={y}
              width={0.68}
              height={height}
            />
          );
        })}
      </g>
    );
  });
}

function NumbersTable({ buckets, unit }: { readonly buckets: readonly Bucket[]; readonly unit: Unit }): ReactNode {
  const shown = SERIES.filter((s) => buckets.some((b) => (b.counts.get(s.status) ?? 0) > 0));
  return (
    <details className="chart-numbers">
      <summary>The numbers as a table</summary>
      <div className="table-wrap">
        <table className="table compact-table">
          <thead>
            <tr>
              <th scope="col">{unit === 'hour' ? 'Hour' : 'Day'}</th>
              <th scope="col">Runs</th>
              {shown.map((s) => (
                <th key={s.status} scope="col">
                  {statusLook(s.label, s.status).text}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {buckets.map((bucket) => (
              <tr key={bucket.start}>
                <th scope="row">{bucketName(bucket, unit)}</th>
                <td>{bucket.total}</td>
                {shown.map((s) => (
                  <td key={s.status}>{bucket.counts.get(s.status) ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

export function RunsChart({ buckets, unit }: { readonly buckets: readonly Bucket[]; readonly unit: Unit }): ReactNode {
  const step = gridStep(Math.max(0, ...buckets.map((b) => b.total)));
  const top = step * 2;
  const total = buckets.reduce((sum, b) => sum + b.total, 0);
  const legend = SERIES.filter((s) => buckets.some((b) => (b.counts.get(s.status) ?? 0) > 0));
  const title = unit === 'hour' ? 'Runs per hour today' : 'Runs per day';
  return (
    <figure className="card chart-card">
      <figcaption className="panel-head">
        <h2>{title}</h2>
        <ul className="chart-legend" aria-label="Statuses">
          {legend.map((s) => {
            const look = statusLook(s.label, s.status);
            return (
              <li key={s.status} className={`tone-${look.tone}`}>
                <span className="legend-swatch" aria-hidden="true" />
                {look.text}
              </li>
            );
          })}
        </ul>
      </figcaption>
      <div className="chart">
        <div className="chart-y" aria-hidden="true">
          <span>{top}</span>
          <span>{step}</span>
          <span>0</span>
        </div>
        <div className="chart-plot">
          <svg
            viewBox={`0 0 ${String(buckets.length)} 100`}
            preserveAspectRatio="none"
            role="img"
            aria-label={`${title}: ${String(total)} ${total === 1 ? 'run' : 'runs'} in ${String(buckets.length)} ${unit === 'hour' ? 'hours' : 'days'}`}
          >
            {[0, 50, 100].map((y) => (
              <line
                key={y}
                className="chart-grid"
                x1={0}
                x2={buckets.length}
                y1={y}
                y2={y}
                vectorEffect="non-scaling-stroke"
              />
            ))}
            <Bars buckets={buckets} top={top} unit={unit} />
          </svg>
          {total === 0 ? <p className="chart-empty">No runs in this period</p> : null}
        </div>
        <div
          className={`chart-x ${buckets.length > 14 ? 'chart-x-dense' : ''}`}
          aria-hidden="true"
          style={{ gridTemplateColumns: `repeat(${String(buckets.length)}, minmax(0, 1fr))` }}
        >
          {buckets.map((bucket, index) => (
            <span key={bucket.start}>{axisLabel(bucket, index, buckets.length, unit)}</span>
          ))}
        </div>
      </div>
      <NumbersTable buckets={buckets} unit={unit} />
    </figure>
  );
}
