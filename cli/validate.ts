import { dagDetails, formatIssue, loadDag, type DagDetails } from '../core/dag/index.ts';
import { dagPolicyProblems } from '../core/policy/dag-policy.ts';
import type { PolicyLevel } from '../core/policy/pod-standards.ts';
import { fileNameOf } from '../core/resources/names.ts';
import type { CliIo } from './io.ts';
import { EXIT, readError } from './exit.ts';

/** One entry of `kubedag validate --json`: the POST /dags/validate shape plus `file`. */
export interface ValidationReport {
  readonly file: string;
  readonly valid: boolean;
  readonly errors: string[];
  readonly warnings: string[];
  readonly dag: DagDetails | null;
}

/** With `policy`, a DAG above that pod policy level is invalid too, as the operator would find it in a namespace of that level. */
export async function validateCommand(
  files: readonly string[],
  json: boolean,
  io: CliIo,
  policy?: PolicyLevel,
): Promise<number> {
  const reports: ValidationReport[] = [];
  let unreadable = false;
  for (const file of files) {
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (error) {
      unreadable = true;
      reports.push({ file, valid: false, errors: [readError(error)], warnings: [], dag: null });
      continue;
    }
    const load = loadDag(text, { fileName: fileNameOf(file) });
    const errors =
      load.errors.length > 0 || policy === undefined
        ? load.errors.map(formatIssue)
        : dagPolicyProblems(load.dag, { level: policy, namespace: '' });
    reports.push({
      file,
      valid: errors.length === 0,
      errors,
      warnings: load.warnings.map(formatIssue),
      dag: dagDetails(load.dag),
    });
  }
  if (json) io.stdout(`${JSON.stringify(reports, null, 2)}\n`);
  else io.stdout(reports.map(humanReport).join(''));
  if (unreadable) return EXIT.usage;
  return reports.every((r) => r.valid) ? EXIT.ok : EXIT.invalid;
}

function humanReport(report: ValidationReport): string {
  const lines = [
    ...report.errors.map((e) => `${report.file}: ${e}`),
    ...report.warnings.map((w) => `${report.file}: warning: ${w}`),
  ];
  if (report.valid) lines.push(`${report.file}: valid`);
  return lines.map((line) => `${line}\n`).join('');
}
