/**
 * The files a step picks outputs from (`from: file`), as its runner sent them through its log
 * (operator/run/pods/picked-file-lines.ts) and the archiver kept them: `F <i>` opens the i-th
 * file entry, `L <line>` is one of its lines, `X <i> <reason>` says why the runner did not send
 * it. Read back into the text of each entry, by name, or the reason it cannot be read. An entry
 * the log says nothing about cannot be read either: a kubernetes step without a command runs its
 * image's entrypoint and no runner, and a log may be cut short. Pure.
 */
import { pickedFiles, type Dag, type PickedOutputs, type Step } from '../../../core/dag/index.ts';

export type FileRead = { readonly text: string } | { readonly error: string };

/** Whether the step (or handler) of that name picks an output from a file: its log then carries the files. */
export function picksFiles(dag: Dag, stepName: string): boolean {
  const step: Step | undefined =
    dag.steps.find((s) => s.name === stepName) ?? Object.values(dag.handlerOn).find((s) => s.name === stepName);
  return pickedFiles(step?.pickedOutputs).length > 0;
}

/** Each `from: file` entry's text or why it could not be read, by the entry's name. */
export function readPickedFiles(stream: string, picked: PickedOutputs): Readonly<Record<string, FileRead>> {
  const names = pickedFiles(picked).map((entry) => entry.name);
  const lines = new Map<number, string[]>();
  const errors = new Map<number, string>();
  let open: string[] | undefined;
  for (const line of stream.split('\n')) {
    if (line.startsWith('L ')) open?.push(line.slice(2));
    else if (line.startsWith('F ')) {
      open = [];
      lines.set(Number(line.slice(2)), open);
    } else if (line.startsWith('X ')) {
      open = undefined;
      const [index = '', ...why] = line.slice(2).split(' ');
      errors.set(Number(index), why.join(' '));
    }
  }
  const read = (i: number): FileRead => {
    const error = errors.get(i);
    if (error !== undefined) return { error };
    const text = lines.get(i);
    // The runner sends each line with its line break, a last one included.
    return text === undefined
      ? {
          error:
            "the step's log holds no word of the file (a step that runs its image's own entrypoint has no runner to read it)",
        }
      : { text: text.length === 0 ? '' : `${text.join('\n')}\n` };
  };
  return Object.fromEntries(names.map((name, i) => [name, read(i)]));
}
