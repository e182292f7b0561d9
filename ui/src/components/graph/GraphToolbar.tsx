import type { ReactNode } from 'react';
import type { Direction } from './layout.ts';

/** The zoom levels the buttons step through; "fit" is the graph's width in the viewport. */
const ZOOMS = [0.5, 0.67, 0.8, 1, 1.25, 1.5] as const;

/** The next zoom level up or down from the scale shown; undefined at either end. */
function nextZoom(scale: number, by: 1 | -1): number | undefined {
  return by > 0 ? ZOOMS.find((z) => z > scale + 0.001) : [...ZOOMS].reverse().find((z) => z < scale - 0.001);
}

interface ToolbarProps {
  /** What the count names: the caption given, or the number of steps. */
  readonly count: string;
  readonly direction: Direction;
  readonly onDirection: (direction: Direction) => void;
  readonly zoom: number | 'fit';
  /** The scale drawn: the zoom, or the fitted scale with zoom "fit". */
  readonly scale: number;
  readonly onZoom: (zoom: number | 'fit') => void;
}

/** The graph's count and its view buttons: direction and zoom. */
export function GraphToolbar({ count, direction, onDirection, zoom, scale, onZoom }: ToolbarProps): ReactNode {
  const step = (by: 1 | -1): void => {
    const next = nextZoom(scale, by);
    if (next !== undefined) onZoom(next);
  };
  return (
    <div className="graph-toolbar">
      <span className="graph-count muted">{count}</span>
      <div className="graph-tools" role="group" aria-label="View">
        <button
          type="button"
          className="button button-quiet"
          onClick={() => {
            onDirection(direction === 'LR' ? 'TB' : 'LR');
          }}
          title="Change the direction of the graph"
        >
          {direction === 'LR' ? 'Left to right' : 'Top to bottom'}
        </button>
        <button
          type="button"
          className="button button-quiet graph-zoom"
          onClick={() => {
            step(-1);
          }}
          disabled={scale <= ZOOMS[0]}
          aria-label="Zoom out"
        >
          −
        </button>
        <button
          type="button"
          className="button button-quiet graph-zoom-level"
          onClick={() => {
            onZoom(zoom === 'fit' ? 1 : 'fit');
          }}
          title={zoom === 'fit' ? 'Show at full size' : 'Fit to the width'}
        >
          {zoom === 'fit' ? 'Fit' : `${String(Math.round(scale * 100))}%`}
        </button>
        <button
          type="button"
          className="button button-quiet graph-zoom"
          onClick={() => {
            step(1);
          }}
          disabled={scale >= (ZOOMS.at(-1) ?? 1)}
          aria-label="Zoom in"
        >
          +
        </button>
      </div>
    </div>
  );
}
