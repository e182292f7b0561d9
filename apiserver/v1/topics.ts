/**
 * The topics of Dagu 2.x's event stream (its web UI's SSEManager asks for them) and where each
 * one's payload is read: the /api/v1 operation whose answer the UI would otherwise poll, so a
 * payload is exactly that answer. `dagrunlogs` is the one composite: a run's log and its steps'
 * log facts. Wiki topics are Dagu's own product and are refused. Pure.
 */
import { V1_PREFIX } from '../paths.ts';

/** Reads of one topic: the paths to GET, in order. */
export interface TopicReads {
  readonly type: string;
  readonly paths: readonly string[];
}

const e = encodeURIComponent;

/** `a/b/c` -> its parts, each non-empty, or undefined when the count differs. */
function parts(identifier: string, count: number): string[] | undefined {
  const found = identifier.split('/');
  return found.length === count && found.every((part) => part !== '') ? found : undefined;
}

function withQuery(path: string, query: string): string {
  return query === '' ? path : `${path}?${query}`;
}

type Reader = (identifier: string) => readonly string[] | undefined;

const READERS: Readonly<Record<string, Reader>> = {
  dagrun: (id) => {
    const p = parts(id, 2);
    return p && [`/dag-runs/${e(p[0] ?? '')}/${e(p[1] ?? '')}`];
  },
  subdagrun: (id) => {
    const p = parts(id, 3);
    return p && [`/dag-runs/${e(p[0] ?? '')}/${e(p[1] ?? '')}/sub-dag-runs/${e(p[2] ?? '')}`];
  },
  dag: (id) => (id === '' ? undefined : [`/dags/${e(id)}`]),
  daghistory: (id) => (id === '' ? undefined : [`/dags/${e(id)}/dag-runs`]),
  dagrunlogs: (id) => {
    const [path = '', query = ''] = id.split('?', 2);
    const p = parts(path, 2);
    if (p === undefined) return undefined;
    const run = `/dag-runs/${e(p[0] ?? '')}/${e(p[1] ?? '')}`;
    // Dagu's UI shows the last 500 lines unless it asks otherwise.
    return [withQuery(`${run}/log`, query === '' ? 'tail=500' : query), run];
  },
  steplog: (id) => {
    const [name = '', runId = '', ...step] = id.split('/');
    const stepName = step.join('/');
    if (name === '' || runId === '' || stepName === '') return undefined;
    const log = `/dag-runs/${e(name)}/${e(runId)}/steps/${e(stepName)}/log`;
    return [`${log}?stream=stdout&tail=500`, `${log}?stream=stderr&tail=500`];
  },
  dagruns: (query) => [withQuery('/dag-runs', query)],
  queues: () => ['/queues'],
  queueitems: (id) => (id === '' ? undefined : [`/queues/${e(id)}/items`]),
  dagslist: (query) => [withQuery('/dags', query)],
};

/** Where a topic (`type:identifier`) is read, under /api/v1; undefined for a topic this server does not have. */
export function topicReads(topic: string): TopicReads | undefined {
  const at = topic.indexOf(':');
  if (at <= 0) return undefined;
  const type = topic.slice(0, at);
  const reader = Object.hasOwn(READERS, type) ? READERS[type] : undefined;
  const paths = reader?.(topic.slice(at + 1));
  return paths === undefined ? undefined : { type, paths: paths.map((path) => `${V1_PREFIX}${path}`) };
}

interface LogChunk {
  readonly content: string;
  readonly lineCount: number;
  readonly totalLines: number;
  readonly hasMore: boolean;
}

interface NodeFacts {
  readonly step: { readonly name: string };
  readonly status: number;
  readonly statusLabel: string;
  readonly startedAt: string;
  readonly finishedAt: string;
}

/** The payload of `dagrunlogs` from the run's log and its details, as Dagu's UI reads it. */
export function runLogsPayload(log: LogChunk, details: { dagRunDetails: { nodes: readonly NodeFacts[] } }): unknown {
  const started = (node: NodeFacts): boolean => node.startedAt !== '';
  return {
    schedulerLog: { content: log.content, lineCount: log.lineCount, totalLines: log.totalLines, hasMore: log.hasMore },
    stepLogs: details.dagRunDetails.nodes.map((node) => ({
      stepName: node.step.name,
      status: node.status,
      statusLabel: node.statusLabel,
      startedAt: node.startedAt,
      finishedAt: node.finishedAt,
      hasStdout: started(node),
      hasStderr: started(node),
    })),
  };
}

/** The payload of `steplog`: both streams' tails, counted as stdout's. */
export function stepLogPayload(stdout: LogChunk, stderr: LogChunk): unknown {
  return {
    stdoutContent: stdout.content,
    stderrContent: stderr.content,
    lineCount: stdout.lineCount,
    totalLines: stdout.totalLines,
    hasMore: stdout.hasMore,
  };
}

/** A payload from the answers to a topic's reads. */
export function topicPayload(type: string, answers: readonly unknown[]): unknown {
  if (type === 'dagrunlogs')
    return runLogsPayload(answers[0] as LogChunk, answers[1] as { dagRunDetails: { nodes: NodeFacts[] } });
  if (type === 'steplog') return stepLogPayload(answers[0] as LogChunk, answers[1] as LogChunk);
  return answers[0];
}

/** An SSE frame: `id`, `event` and one `data` line (JSON has no raw newlines). */
export function frame(data: unknown, options: { id?: number; event?: string } = {}): string {
  return `${options.id === undefined ? '' : `id: ${String(options.id)}\n`}${options.event === undefined ? '' : `event: ${options.event}\n`}data: ${JSON.stringify(data)}\n\n`;
}
