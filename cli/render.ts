import { dump } from 'js-yaml';
import { formatIssue, loadDag } from '../core/dag/index.ts';
import { dagManifest } from '../core/resources/dag.ts';
import { FILE_NAME_PATTERN, fileNameOf } from '../core/resources/names.ts';
import { EXIT, readError } from './exit.ts';
import type { CliIo } from './io.ts';

/**
 * Prints one DAG resource per file, `---`-separated. Nothing reaches stdout unless every file
 * is valid, so `kubedag render a.yaml | kubectl apply -f -` never applies half a set.
 */
export async function renderCommand(
  files: readonly string[],
  namespace: string | undefined,
  io: CliIo,
): Promise<number> {
  const manifests: string[] = [];
  let status: number = EXIT.ok;
  for (const file of files) {
    let text: string;
    try {
      text = await io.readFile(file);
    } catch (error) {
      io.stderr(`${file}: ${readError(error)}\n`);
      status = EXIT.usage;
      continue;
    }
    const fileName = fileNameOf(file);
    const load = loadDag(text, { fileName });
    const errors = load.errors.map(formatIssue);
    if (!FILE_NAME_PATTERN.test(fileName))
      errors.unshift(
        `file name "${fileName}" must match ${String(FILE_NAME_PATTERN)} to be addressable through the API; rename the file`,
      );
    for (const warning of load.warnings) io.stderr(`${file}: warning: ${formatIssue(warning)}\n`);
    if (errors.length > 0) {
      for (const error of errors) io.stderr(`${file}: ${error}\n`);
      if (status === EXIT.ok) status = EXIT.invalid;
      continue;
    }
    manifests.push(dump(dagManifest(fileName, load.documents, namespace), { lineWidth: -1, noRefs: true }));
  }
  if (status === EXIT.ok) io.stdout(manifests.join('---\n'));
  return status;
}
