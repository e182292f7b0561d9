/**
 * The step runner's part in Dagu 2.x's artifacts (docs/decisions/2026-11-29-run-artifacts.md).
 * The step gets DAG_RUN_ARTIFACTS_DIR, a directory of the run's workspace, so every step of the
 * run sees the files earlier steps left. Before the command the runner notes a checksum and size
 * of every file there; after it, the files that are new or changed go into the runner's log as
 * hex (`od`, POSIX, so any image with a shell does), each line tagged `A ` and each file opened
 * by `A F <size> <path>`. The archiver keeps them in the log store (core/logs/artifacts.ts). The
 * operator never reads the volume, and no store credential ever reaches a step's Pod.
 * More than ARTIFACT_LIMITS sends nothing and fails the step with the reason. Pure.
 */
import { posix } from 'node:path';
import { ARTIFACT_LIMITS, overLimit } from '../../../core/logs/artifacts.ts';
import type { Workspace } from './workspace.ts';

/** Where a run's artifacts are written: in the workspace, so steps share them; else in the Pod. */
export function stepArtifactsDir(workspace: Workspace | undefined): string {
  return workspace === undefined ? '/tmp/kubedag-artifacts' : posix.join(workspace.mountPath, '.kubedag', 'artifacts');
}

/** The runner's lines around the command; none when the step has no artifacts directory. */
export function artifactLines(artifactsDir: string | undefined): { start: string[]; end: string[] } {
  if (artifactsDir === undefined) return { start: [], end: [] };
  const { files, bytes } = ARTIFACT_LIMITS;
  return {
    start: [
      'kd_ad=$DAG_RUN_ARTIFACTS_DIR',
      `mkdir -p "$kd_ad" || { printf 'E kubedag: cannot create the artifacts directory %s\\n' "$kd_ad"; exit 1; }`,
      // cksum is POSIX and sees a change that keeps the size and the second of the mtime.
      'kd_sums() { (cd "$kd_ad" && find . -type f -exec cksum {} + 2>/dev/null) | sort; }',
      'kd_sums > "$kd_dir/artifacts.before"',
    ],
    end: [
      'kd_sums > "$kd_dir/artifacts.after"',
      'grep -vxF -f "$kd_dir/artifacts.before" "$kd_dir/artifacts.after" > "$kd_dir/artifacts.new" || true',
      'kd_an=0; kd_ab=0',
      // A name with a line break spoils its line: such lines are left out, never summed.
      'while read -r kd_c kd_s kd_p; do case $kd_s in \'\'|*[!0-9]*) continue;; esac; kd_an=$((kd_an + 1)); kd_ab=$((kd_ab + kd_s)); done < "$kd_dir/artifacts.new"',
      `if [ "$kd_an" -gt ${String(files)} ] || [ "$kd_ab" -gt ${String(bytes)} ]; then`,
      `  printf 'E kubedag: %s files of %s bytes in the artifacts directory are new: ${overLimit()}\\n' "$kd_an" "$kd_ab"`,
      '  if [ "$kd_code" = 0 ]; then kd_code=1; fi',
      'else',
      // The run's sequence of artifact writes, beside the directory (never listed in it).
      `  kd_seq=$(cat "$kd_ad.seq" 2>/dev/null || true); case $kd_seq in ''|*[!0-9]*) kd_seq=0;; esac`,
      `  kd_seq=$((kd_seq + 1)); { echo "$kd_seq" > "$kd_ad.seq"; } 2>/dev/null || true; printf 'A S %s\\n' "$kd_seq"`,
      '  while read -r kd_c kd_s kd_p; do case $kd_s in \'\'|*[!0-9]*) continue;; esac; kd_p=${kd_p#./}; printf \'A F %s %s\\n\' "$kd_s" "$kd_p"; od -An -v -tx1 < "$kd_ad/$kd_p" | sed \'s/^/A /\'; done < "$kd_dir/artifacts.new"',
      'fi',
    ],
  };
}
