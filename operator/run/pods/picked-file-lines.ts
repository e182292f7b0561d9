/**
 * The step runner's part in Dagu 2.x's `from: file` picked outputs (v2.15.1
 * `readStructuredOutputSource`): once the command has succeeded, the runner reads each named
 * file and sends it through its log, which the archiver keeps apart (demux) and the operator
 * reads (operator/run/decide/picked-files.ts); the operator never reads the step's volume. As in
 * Dagu the path's variables are expanded as the step sees them, and a relative path is taken
 * from the step's working directory, where the runner runs. A file missing, unreadable or larger
 * than the DAG's maxOutputSize is not sent: the runner says why, and the operator fails the step
 * with that reason. The lines, each one write: `P F <i>` opens the i-th file entry, `P L <line>`
 * carries each of its lines, `P X <i> <reason>` says why it is not sent. Pure.
 */
import { pickedFiles, type EnvVar, type Step } from '../../../core/dag/index.ts';

/** The variable that carries the i-th file entry's path, as written. */
const pathVariable = (i: number): string => `KUBEDAG_PICK_FILE_${String(i)}`;

/** The paths of the step's `from: file` entries, for the runner. */
export function pickedFileEnv(step: Step): EnvVar[] {
  return pickedFiles(step.pickedOutputs).map((entry, i) => ({ name: pathVariable(i), value: entry.path }));
}

/** The runner's lines after the command; none when the step reads no file. */
export function pickedFileLines(step: Step, maxBytes: number): string[] {
  const files = pickedFiles(step.pickedOutputs);
  if (files.length === 0) return [];
  const refuse = (why: string): string =>
    `{ printf 'P X %s failed to read file "%s": ${why}\\n' "$1" "$kd_pp"; return; }`;
  return [
    'kd_pf() {',
    '  kd_pp=$(eval "printf \'%s\' \\"$2\\""); case $kd_pp in /*) ;; *) kd_pp="$PWD/$kd_pp";; esac',
    `  [ -e "$kd_pp" ] || ${refuse('no such file or directory')}`,
    `  [ ! -d "$kd_pp" ] || ${refuse('is a directory')}`,
    `  [ -r "$kd_pp" ] || ${refuse('permission denied')}`,
    // Measured before it is sent: an oversized file never reaches the log.
    '  kd_ps=$(wc -c < "$kd_pp" | tr -d \' \')',
    `  [ "$kd_ps" -le ${String(maxBytes)} ] || ${refuse(`output exceeded maximum size limit of ${String(maxBytes)} bytes`)}`,
    '  printf \'P F %s\\n\' "$1"; kd_tag \'P L\' < "$kd_pp"',
    '}',
    `if [ "$kd_code" = 0 ]; then ${files.map((_, i) => `kd_pf ${String(i)} "$${pathVariable(i)}"`).join('; ')}; fi`,
  ];
}
