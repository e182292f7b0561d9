/**
 * Where a log lives in a store, as a relative path of `/`-separated parts that every store
 * shares: `<namespace>/<dag>/<run id>/` for a run, then `<step>.<attempt>.<stream>` for one
 * attempt's stream. Each name is encoded so that it is one part that never contains `/` and
 * is never `.` or `..`: no name can climb into another run's folder or prefix, and a run's
 * prefix (ending in `/`) never matches another run whose id merely begins the same way.
 * Which attempt a log belongs to (LogRef) is named here too; the stores take it.
 */
export interface LogRef {
  readonly namespace: string;
  readonly dagName: string;
  readonly dagRunId: string;
  readonly step: string;
  readonly attempt: number;
}

/** Where an attempt's logs are kept: its run's namespace, DAG name and run id, the step and the attempt. */
export function logRefOf(
  run: { readonly namespace: string; readonly dagName: string; readonly dagRunId: string },
  step: string,
  attempt: number,
): LogRef {
  return { namespace: run.namespace, dagName: run.dagName, dagRunId: run.dagRunId, step, attempt };
}

export type Stream = 'stdout' | 'stderr';

/**
 * What a store keeps of an attempt: its two log streams and, for a step that declares Dagu 2.x
 * outputs, the records it wrote into DAGU_OUTPUT_FILE (read by the operator, never served as a log);
 * for a step that picks an output `from: file`, the files its runner sent back (likewise);
 * for a run with artifacts, the manifest of the files it left (core/logs/artifacts.ts).
 */
export type KeptStream = Stream | 'outputs' | 'picked' | 'artifacts';

/** An attempt's logs as the archiver writes them; `outputs`, `picked` and `artifacts` only when the run has them. */
export type AttemptLogs = Record<Stream, string> & { outputs?: string; picked?: string; artifacts?: string };

/** The streams a write keeps, in order: stderr last, so that `exists` is true only once all are written. */
export function keptStreams(logs: AttemptLogs): KeptStream[] {
  return [
    'stdout',
    ...(logs.outputs === undefined ? [] : (['outputs'] as const)),
    ...(logs.picked === undefined ? [] : (['picked'] as const)),
    ...(logs.artifacts === undefined ? [] : (['artifacts'] as const)),
    'stderr',
  ];
}

/** Whether a key (or file name) in a run's folder is an attempt's artifact manifest. */
export const isArtifactKey = (key: string): boolean => key.endsWith('.artifacts');

/** One path part: percent-encoded, dots included, so `..` or `a/b` stay inside their part. */
export const keyPart = (name: string): string => encodeURIComponent(name).replaceAll('.', '%2E');

/** The folder (or key prefix) of every log of a run, ending in `/`. */
export function runKeyPrefix(namespace: string, dagName: string, dagRunId: string): string {
  return `${keyPart(namespace)}/${keyPart(dagName)}/${keyPart(dagRunId)}/`;
}

/** One stream of one attempt: its run's prefix, then `<step>.<attempt>.<stream>`. */
export function attemptKey(ref: LogRef, stream: KeptStream): string {
  return `${runKeyPrefix(ref.namespace, ref.dagName, ref.dagRunId)}${keyPart(ref.step)}.${String(ref.attempt)}.${stream}`;
}
