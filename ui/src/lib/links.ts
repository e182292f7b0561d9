/**
 * The app's URLs, in one place: every page is a deep link, and pages link to each other only
 * through these builders, so a route can move without hunting for string templates.
 *
 * A run is addressed by its DAG name and dagRunId, as the API does; a sub-run hangs under its
 * root run (the API's sub-dag-runs paths), so its page can lead back to its parent and root.
 */
const part = encodeURIComponent;

export const links = {
  dags: (): string => '/dags',
  dag: (fileName: string): string => `/dags/${part(fileName)}`,
  /** A tab of a DAG's page: graph (default), spec, history. */
  dagTab: (fileName: string, tab: 'spec' | 'history'): string => `/dags/${part(fileName)}/${tab}`,
  runs: (): string => '/runs',
  run: (name: string, dagRunId: string): string => `/runs/${part(name)}/${part(dagRunId)}`,
  subRun: (rootName: string, rootRunId: string, subDagRunId: string): string =>
    `/runs/${part(rootName)}/${part(rootRunId)}/sub-runs/${part(subDagRunId)}`,
  /** The run log, or a step's stdout/stderr, of a run (sub-runs: pass the sub-run's page as base). */
  runLog: (runPage: string): string => `${runPage}/log`,
  stepLog: (runPage: string, stepName: string, stream: 'stdout' | 'stderr' = 'stdout'): string =>
    `${runPage}/steps/${part(stepName)}/log${stream === 'stderr' ? '?stream=stderr' : ''}`,
  queues: (): string => '/queues',
  workers: (): string => '/workers',
  system: (): string => '/system',
  search: (q?: string): string => (q === undefined || q === '' ? '/search' : `/search?q=${part(q)}`),
} as const;
