/**
 * The UI's icons: a few strokes each on a 24-unit grid, drawn in the current text colour. Inline
 * SVG rather than an icon font or package: nothing to fetch, and they scale with the text.
 */
import type { ReactNode } from 'react';

const PATHS = {
  dashboard: 'M4 4h6v8H4zM14 4h6v5h-6zM14 13h6v7h-6zM4 16h6v4H4z',
  dags: 'M6 6h5M6 6v12M6 18h5M11 6l7 6M11 18l7-6M4 4h4v4H4zM4 16h4v4H4zM16 10h4v4h-4z',
  runs: 'M5 5l7 7-7 7M13 19h6',
  queues: 'M4 6h16M4 12h16M4 18h10',
  workers: 'M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01',
  system: 'M3 12h4l3-7 4 14 3-7h4',
  search: 'M11 4a7 7 0 1 0 0 14a7 7 0 1 0 0-14M16 16l5 5',
  sun: 'M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8M12 2v2M12 20v2M4.9 4.9l1.4 1.4M17.7 17.7l1.4 1.4M2 12h2M20 12h2M4.9 19.1l1.4-1.4M17.7 6.3l1.4-1.4',
  moon: 'M20 14.5A8 8 0 0 1 9.5 4a8 8 0 1 0 10.5 10.5z',
  auto: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 3v18',
  menu: 'M4 7h16M4 12h16M4 17h16',
  close: 'M6 6l12 12M18 6L6 18',
  chevronLeft: 'M15 5l-7 7 7 7',
  chevronRight: 'M9 5l7 7-7 7',
  // The run page and log viewer's actions.
  first: 'M6 5v14M18 5l-7 7 7 7',
  last: 'M18 5v14M6 5l7 7-7 7',
  download: 'M12 4v11M7 10l5 5 5-5M5 20h14',
  log: 'M6 3h9l4 4v14H6zM9 12h7M9 16h7M9 8h3',
  stop: 'M6 6h12v12H6z',
  retry: 'M4 12a8 8 0 1 0 2.3-5.7M4 4v4h4',
  reschedule: 'M4 6h16v14H4zM4 10h16M8 3v4M16 3v4M12 13v3l2 1',
  dequeue: 'M4 6h16M4 12h9M4 18h9M16 14l5 5M21 14l-5 5',
  edit: 'M4 20h4L19 9l-4-4L4 16zM13 7l4 4',
  sortAsc: 'M8 9l4-4 4 4M12 5v14',
  sortDesc: 'M8 15l4 4 4-4M12 5v14',
  sortNone: 'M8 9l4-4 4 4M8 15l4 4 4-4',
  clock: 'M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18M12 7v5l3 2',
  pause: 'M8 5v14M16 5v14',
  alert: 'M12 3l10 18H2zM12 10v4M12 17.5h.01',
  signOut: 'M15 4h4v16h-4M10 8l-4 4 4 4M6 12h11',
  tag: 'M3 3h8l10 10-8 8L3 11zM7.5 7.5h.01',
  play: 'M7 4.5v15l12-7.5z',
  plus: 'M12 5v14M5 12h14',
  trash: 'M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13M10 11v6M14 11v6',
  pencil: 'M4 20h4L19 9l-4-4L4 16zM13 7l4 4',
  check: 'M5 12.5l4.5 4.5L19 7.5',
} as const;

export type IconName = keyof typeof PATHS;

export function Icon({
  name,
  size = 18,
  label,
}: {
  readonly name: IconName;
  readonly size?: number;
  readonly label?: string;
}): ReactNode {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      {...(label === undefined ? { 'aria-hidden': true } : { role: 'img', 'aria-label': label })}
    >
      <path d={PATHS[name]} />
    </svg>
  );
}
