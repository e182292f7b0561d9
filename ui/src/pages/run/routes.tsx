/**
 * The run pages' routes (lib/links.ts builds their URLs): a run, its log and its steps' logs,
 * for root runs and for sub-runs under their root.
 */
import type { RouteObject } from 'react-router';
import { LogPage } from './LogPage.tsx';
import { RunPage } from './RunPage.tsx';

const pages = (base: string): RouteObject[] => [
  { path: base, element: <RunPage /> },
  { path: `${base}/log`, element: <LogPage /> },
  { path: `${base}/steps/:stepName/log`, element: <LogPage /> },
];

export const runRoutes: RouteObject[] = [
  ...pages('runs/:name/:dagRunId'),
  ...pages('runs/:name/:dagRunId/sub-runs/:subDagRunId'),
];
