/**
 * Where step logs are kept after their Pods are gone. An interface with two stores: a
 * directory (the default: a PersistentVolume in a cluster, `.dev/logs` locally) and an
 * S3-compatible bucket (s3-store.ts), which replicas share without a shared volume.
 */
import { access, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  attemptKey,
  isArtifactKey,
  keptStreams,
  runKeyPrefix,
  type AttemptLogs,
  type KeptStream,
  type LogRef,
} from './keys.ts';

export interface LogStore {
  /**
   * Writes both streams, stderr last. Idempotent: a replica or a restarted leader that archives
   * the same attempt again writes the same logs over them.
   */
  write(ref: LogRef, logs: AttemptLogs): Promise<void>;
  /** Whether the attempt's logs were written (both streams are written before this is true). */
  exists(ref: LogRef): Promise<boolean>;
  /** Undefined when nothing was written for the attempt. */
  read(ref: LogRef, stream: KeptStream): Promise<string | undefined>;
  /** Every artifact manifest of a run's attempts, as kept (empty when none). */
  artifactManifests(namespace: string, dagName: string, dagRunId: string): Promise<string[]>;
  /** Removes every log of a run (retention), its artifacts included. */
  removeRun(namespace: string, dagName: string, dagRunId: string): Promise<void>;
}

export class DirectoryLogStore implements LogStore {
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  /** Paths from keys.ts, whose parts are encoded so that no name can climb out of the directory. */
  private file(ref: LogRef, stream: KeptStream): string {
    return join(this.root, attemptKey(ref, stream));
  }

  async write(ref: LogRef, logs: AttemptLogs): Promise<void> {
    // stderr last: it is what `exists` looks for.
    for (const stream of keptStreams(logs)) {
      const path = this.file(ref, stream);
      await mkdir(dirname(path), { recursive: true });
      // Written whole to a temporary name first: a reader never sees half a log.
      await writeFile(`${path}.tmp`, logs[stream] ?? '');
      await rename(`${path}.tmp`, path);
    }
  }

  async exists(ref: LogRef): Promise<boolean> {
    return access(this.file(ref, 'stderr')).then(
      () => true,
      () => false,
    );
  }

  async read(ref: LogRef, stream: KeptStream): Promise<string | undefined> {
    return readFile(this.file(ref, stream), 'utf8').catch(() => undefined);
  }

  async artifactManifests(namespace: string, dagName: string, dagRunId: string): Promise<string[]> {
    const dir = join(this.root, runKeyPrefix(namespace, dagName, dagRunId));
    const names = await readdir(dir).catch(() => []);
    return Promise.all(names.filter(isArtifactKey).map((name) => readFile(join(dir, name), 'utf8')));
  }

  async removeRun(namespace: string, dagName: string, dagRunId: string): Promise<void> {
    await rm(join(this.root, runKeyPrefix(namespace, dagName, dagRunId)), { recursive: true, force: true });
  }
}
