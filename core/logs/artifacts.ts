/**
 * A run's artifacts (Dagu 2.x's DAG_RUN_ARTIFACTS_DIR) on their way from the step Pod to the
 * API. The step's shell runner writes the files that are new or changed since the step began
 * into its log, hex-encoded, each line tagged `A ` (operator/run/pods/artifact-lines.ts); the
 * archiver decodes them (parseArtifactLines) and keeps one manifest per attempt in the log
 * store beside its logs; the operator's endpoint merges a run's manifests (mergeArtifacts) and
 * the API server turns the files into Dagu's tree and preview (artifact-views.ts). Pure.
 * Decisions: docs/decisions/2026-11-29-run-artifacts.md.
 */
import { maskSecrets } from './mask.ts';

/**
 * Per step attempt. The runner refuses more and fails the step; the archiver checks again, since
 * what a Pod prints is not to be trusted. The bytes pass through the container log as hex (three
 * characters a byte), and a real kubelet rotates a container's log at 10 MiB by default: 2 MiB
 * of files stays below that with room for the step's own output.
 */
export const ARTIFACT_LIMITS = { files: 100, bytes: 2 * 1024 * 1024 } as const;

/** One file as kept: its path inside the artifacts directory, its size and its bytes (base64). */
export interface ArtifactFile {
  readonly path: string;
  readonly size: number;
  readonly data: string;
}

/**
 * What one attempt left: `at` orders attempts of a run (the later file of a path wins): the
 * run's write sequence (see parseArtifactLines), then when the step ended, then its key.
 */
export interface ArtifactManifest {
  readonly at: string;
  readonly files: readonly ArtifactFile[];
}

/** A decoded attempt, or why its files were not kept. */
export type ParsedArtifacts =
  { readonly files: ArtifactFile[]; readonly sequence: number } | { readonly error: string };

/** Whether a path may name a kept file: relative, `/`-separated, no empty, `.` or `..` part. */
export function safeArtifactPath(path: string): boolean {
  if (path === '' || path.startsWith('/') || path.includes('\0') || path.includes('\n')) return false;
  return path.split('/').every((part) => part !== '' && part !== '.' && part !== '..');
}

/**
 * The `A ` lines of a runner's log, tag removed: `S <n>` is the attempt's place in the run's
 * sequence of artifact writes (a counter the steps share in the workspace: two steps that end in
 * the same second still keep their order), `F <size> <path>` opens a file, and the lines after
 * it are `od -An -v -tx1` output (hex pairs separated by blanks) until the next `F`.
 */
export function parseArtifactLines(text: string): ParsedArtifacts {
  const files: { path: string; size: number; hex: string[] }[] = [];
  let total = 0;
  let sequence = 0;
  for (const line of text.split('\n')) {
    const counted = /^S (\d+)$/.exec(line);
    if (counted !== null) {
      sequence = Number(counted[1]);
      continue;
    }
    const header = /^F (\d+) (.+)$/.exec(line);
    if (header !== null) {
      const path = header[2] ?? '';
      if (!safeArtifactPath(path))
        return { error: `artifact path "${path}" is not a relative path inside the directory` };
      files.push({ path, size: Number(header[1]), hex: [] });
      total += Number(header[1]);
      if (files.length > ARTIFACT_LIMITS.files || total > ARTIFACT_LIMITS.bytes) return { error: overLimit() };
      continue;
    }
    const current = files.at(-1);
    if (current !== undefined && line.trim() !== '') current.hex.push(line.replaceAll(/\s/g, ''));
  }
  const decoded: ArtifactFile[] = [];
  for (const file of files) {
    const hex = file.hex.join('');
    if (!/^(?:[0-9a-f]{2})*$/i.test(hex) || hex.length / 2 !== file.size)
      return {
        error: `artifact "${file.path}" arrived incomplete (${String(hex.length / 2)} of ${String(file.size)} bytes)`,
      };
    decoded.push({ path: file.path, size: file.size, data: Buffer.from(hex, 'hex').toString('base64') });
  }
  return { files: decoded, sequence };
}

/** The texts maskSecrets replaces: each secret, and each non-blank line of a multi-line one. */
function secretTexts(secrets: readonly string[]): string[] {
  return secrets.flatMap((secret) =>
    secret === '' ? [] : [secret, ...secret.split('\n').filter((line) => line.trim() !== '')],
  );
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The file's text when it is one: valid UTF-8 without a NUL byte; undefined for a binary file. */
function textOf(bytes: Buffer): string | undefined {
  try {
    const text = UTF8.decode(bytes);
    return text.includes('\0') ? undefined : text;
  } catch {
    return undefined;
  }
}

/**
 * The run's secret values kept out of its artifacts, as they are kept out of its logs. A text
 * file is masked as a log is (maskSecrets: the value becomes `*******`, its size changes with
 * it). A binary file cannot be masked without corrupting it, so one that holds a secret's bytes
 * is not kept at all, and its path is named in `dropped`; one that holds none is kept as it is.
 */
export function maskArtifacts(
  files: readonly ArtifactFile[],
  secrets: readonly string[],
): { files: ArtifactFile[]; dropped: string[] } {
  const texts = secretTexts(secrets);
  if (texts.length === 0) return { files: [...files], dropped: [] };
  const kept: ArtifactFile[] = [];
  const dropped: string[] = [];
  for (const file of files) {
    const bytes = Buffer.from(file.data, 'base64');
    const text = textOf(bytes);
    if (text !== undefined) {
      const masked = Buffer.from(maskSecrets(text, secrets));
      kept.push({ path: file.path, size: masked.length, data: masked.toString('base64') });
    } else if (texts.some((secret) => bytes.includes(Buffer.from(secret)))) dropped.push(file.path);
    else kept.push(file);
  }
  return { files: kept, dropped };
}

/** The manifest's `at`: sequence first (zero-padded, so text order is number order), then the end time and the key. */
export function manifestAt(sequence: number, endedAt: string, key: string): string {
  return `${String(sequence).padStart(12, '0')} ${endedAt} ${key}`;
}

/** The reason a step fails or its files are dropped when it leaves too much. */
export function overLimit(): string {
  return `a step may leave at most ${String(ARTIFACT_LIMITS.files)} new artifact files of ${String(ARTIFACT_LIMITS.bytes / 1024 / 1024)} MiB in all`;
}

/**
 * A run's files from its attempts' manifests: the later attempt's file of a path wins, as the
 * later write wins in the directory. A path that is now a directory of another attempt's files
 * (or the reverse) keeps the later one only.
 */
export function mergeArtifacts(manifests: readonly ArtifactManifest[]): ArtifactFile[] {
  const byPath = new Map<string, ArtifactFile>();
  for (const manifest of [...manifests].sort((a, b) => a.at.localeCompare(b.at)))
    for (const file of manifest.files) {
      for (const kept of [...byPath.keys()])
        if (kept.startsWith(`${file.path}/`) || file.path.startsWith(`${kept}/`)) byPath.delete(kept);
      byPath.set(file.path, file);
    }
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** A manifest as kept text; undefined when the text is not one (a store's stray object). */
export function parseManifest(text: string): ArtifactManifest | undefined {
  try {
    const value = JSON.parse(text) as Partial<ArtifactManifest>;
    return typeof value.at === 'string' && Array.isArray(value.files) ? (value as ArtifactManifest) : undefined;
  } catch {
    return undefined;
  }
}
