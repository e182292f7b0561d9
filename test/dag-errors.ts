import { formatIssue } from '../core/dag/issues.ts';
import { loadDag } from '../core/dag/load.ts';

/** The formatted errors of loading a DAG file's text under the file name given. */
export const errorsIn =
  (fileName: string) =>
  (text: string): string[] =>
    loadDag(text, { fileName }).errors.map(formatIssue);

/** A file of one step whose kubernetes block is `block`. */
export const kubernetesStep = (block: string): string => `steps:\n  - command: make\n    kubernetes: ${block}`;
