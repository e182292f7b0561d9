/**
 * The main navigation, in order. `built: false` marks sections that are still placeholders: the
 * navigation says so, and their page says what will be there and which API answers meanwhile.
 */
import type { IconName } from '../components/Icon.tsx';

export interface Section {
  readonly path: string;
  readonly label: string;
  readonly icon: IconName;
  readonly built: boolean;
  /** What the page shows (or will show), one sentence. */
  readonly summary: string;
  /** Where the same information is in the API today. */
  readonly api: string;
}

export const SECTIONS: readonly Section[] = [
  {
    path: '/',
    label: 'Dashboard',
    icon: 'dashboard',
    built: true,
    summary: 'Runs by status over a period, what is running and queued now, and recent failures.',
    api: 'GET /api/v2/dag-runs',
  },
  {
    path: '/dags',
    label: 'DAGs',
    icon: 'dags',
    built: true,
    summary: 'Every DAG with its schedule, next run and latest run.',
    api: 'GET /api/v2/dags',
  },
  {
    path: '/runs',
    label: 'Runs',
    icon: 'runs',
    built: true,
    summary: 'Runs of every DAG, filtered by status, DAG and time.',
    api: 'GET /api/v2/dag-runs',
  },
  {
    path: '/queues',
    label: 'Queues',
    icon: 'queues',
    built: true,
    summary: 'Queues with their running and queued runs.',
    api: 'GET /api/v2/queues',
  },
  {
    path: '/workers',
    label: 'Workers',
    icon: 'workers',
    built: true,
    summary: 'The cluster nodes that run steps, with labels, health and running tasks.',
    api: 'GET /api/v2/workers',
  },
  {
    path: '/system',
    label: 'System',
    icon: 'system',
    built: true,
    summary: 'Health, version, the scheduler leader and metrics.',
    api: 'GET /api/v2/health',
  },
  {
    path: '/search',
    label: 'Search',
    icon: 'search',
    built: true,
    summary: 'Search over DAG specs, with the matching lines.',
    api: 'GET /api/v2/dags/search?q=…',
  },
];
