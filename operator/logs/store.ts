/**
 * Where step logs are kept after their Pods are gone. An interface, so that an object store
 * can replace the default: a directory (a PersistentVolume in a cluster, `.dev/logs` locally).
 */
import { access, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface LogRef {
  readonly namespace: string;
  readonly dagName: string;
  readonly dagRunId: string;
  readonly step: string;
  readonly attempt: number;
}

/** Where an attempt's logs are kept: its run's namespace, DAG name and run id, the step and the attempt. */
export function logRefOf(run: { readonly namespace: string; readonly dagName: string; readonly dagRunId: string }, step: string, attempt: number): LogRef {
  return { namespace: run.namespace, dagName: run.dagName, dagRunId: run.dagRunId, step, attempt };
}

export type Stream = 'stdout' | 'stderr';

export interface LogStore {
  write(ref: LogRef, logs: Record<Stream, string>): Promise<void>;
  /** Whether the attempt's logs were written (both streams are written before this is true). */
  exists(ref: LogRef): Promise<boolean>;
  /** Undefined when nothing was written for the attempt. */
  read(ref: LogRef, stream: Stream): Promise<string | undefined>;
  /** Removes every log of a run (retention). */
  removeRun(namespace: string, dagName: string, dagRunId: string): Promise<void>;
}

/** Path parts are encoded so that no name can climb out of the store's directory. */
const safe = (part: string): string => encodeURIComponent(part).replaceAll('.', '%2E');

export class DirectoryLogStore implements LogStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  private runDir(namespace: string, dagName: string, dagRunId: string): string {
    return join(this.root, safe(namespace), safe(dagName), safe(dagRunId));
  }

  private file(ref: LogRef, stream: Stream): string {
    return join(this.runDir(ref.namespace, ref.dagName, ref.dagRunId), `${safe(ref.step)}.${String(ref.attempt)}.${stream}`);
  }

  async write(ref: LogRef, logs: Record<Stream, string>): Promise<void> {
    for (const stream of ['stdout', 'stderr'] as const) {
      const path = this.file(ref, stream);
      await mkdir(dirname(path), { recursive: true });
      // Written whole to a temporary name first: a reader never sees half a log.
      await writeFile(`${path}.tmp`, logs[stream]);
      await rename(`${path}.tmp`, path);
    }
  }

  async exists(ref: LogRef): Promise<boolean> {
    return access(this.file(ref, 'stderr')).then(
      () => true,
      () => false,
    );
  }

  async read(ref: LogRef, stream: Stream): Promise<string | undefined> {
    return readFile(this.file(ref, stream), 'utf8').catch(() => undefined);
  }

  async removeRun(namespace: string, dagName: string, dagRunId: string): Promise<void> {
    await rm(this.runDir(namespace, dagName, dagRunId), { recursive: true, force: true });
  }
}
