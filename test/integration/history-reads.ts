/**
 * Every read the contract has of a run (and of its sub run, logs and DAG), and the run listings
 * with each filter that could find it: what must answer the same before and after the run is
 * archived into the history store.
 */
export function contractReads(name: string, id: string, sub: string, from: number): string[] {
  const at = `/api/v2/dag-runs/${name}/${id}`;
  return [
    '/api/v2/dag-runs',
    `/api/v2/dag-runs/${name}`,
    `/api/v2/dag-runs?name=${name.slice(0, 3)}`,
    '/api/v2/dag-runs?status=4',
    '/api/v2/dag-runs?status=2',
    `/api/v2/dag-runs?dagRunId=${id}`,
    `/api/v2/dag-runs?fromDate=${String(from)}&toDate=${String(from)}`,
    `/api/v2/dag-runs?fromDate=${String(from + 1)}`,
    at,
    `${at}/log`,
    `${at}/steps/first/log`,
    `${at}/sub-dag-runs`,
    `${at}/sub-dag-runs/${sub}`,
    `${at}/sub-dag-runs/${sub}/log`,
    `${at}/sub-dag-runs/${sub}/steps/inner/log`,
    `/api/v2/dag-runs/${name}/latest`,
    `/api/v2/dags/${name}/dag-runs`,
    `/api/v2/dags/${name}/dag-runs/${id}`,
    `/api/v2/dags/${name}`,
  ];
}
