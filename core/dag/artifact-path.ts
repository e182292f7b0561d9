/**
 * Dagu 2.x's rule for a path inside the run's artifacts directory (v2.15.1
 * `cleanStepArtifactPath` for `stdout.artifact`/`stderr.artifact`, `cleanArtifactPath` of the
 * artifact executor): trimmed, `\` read as `/`, never absolute, `~` or with a `..` part, and
 * cleaned; `.` (the directory itself) only where the caller allows it. The loader and the step
 * runner word the problem each as Dagu does there. Pure.
 */
import { posix } from 'node:path';

export type ArtifactPathProblem = 'empty' | 'absolute' | 'parent' | 'root';

export function cleanArtifactPath(
  raw: string,
  allowRoot: boolean,
): { path: string } | { problem: ArtifactPathProblem } {
  const text = raw.trim();
  if (text === '') return allowRoot ? { path: '.' } : { problem: 'empty' };
  const normalized = text.replaceAll('\\', '/');
  if (normalized.startsWith('/') || normalized === '~' || normalized.startsWith('~/') || /^[A-Za-z]:/.test(normalized))
    return { problem: 'absolute' };
  if (normalized.split('/').includes('..')) return { problem: 'parent' };
  const clean = posix.normalize(normalized).replace(/\/+$/, '') || '.';
  return clean === '.' && !allowRoot ? { problem: 'root' } : { path: clean };
}
