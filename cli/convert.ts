import { convertDag } from '../core/dag/convert.ts';
import type { Dialect } from '../core/dag/dialect.ts';
import { formatIssue } from '../core/dag/index.ts';
import { fileNameOf } from '../core/resources/names.ts';
import { EXIT, readError } from './exit.ts';
import type { CliIo } from './io.ts';

/**
 * Prints FILE rewritten in the other dialect (or `to`). What cannot be carried over is said on
 * stderr, one line per loss; then nothing is printed and the exit status is 1, unless `lossy`
 * lets the rest be written (exit 0). An invalid file is reported as `validate` does (exit 1).
 */
export async function convertCommand(
  file: string,
  to: Dialect | undefined,
  lossy: boolean,
  io: CliIo,
): Promise<number> {
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (error) {
    io.stderr(`${file}: ${readError(error)}\n`);
    return EXIT.usage;
  }
  const conversion = convertDag(text, { fileName: fileNameOf(file), lossy, ...(to === undefined ? {} : { to }) });
  for (const error of conversion.errors) io.stderr(`${file}: ${formatIssue(error)}\n`);
  const label = lossy ? 'left out' : 'cannot be carried over';
  for (const loss of conversion.losses) io.stderr(`${file}: ${label} to Dagu ${conversion.to}: ${formatIssue(loss)}\n`);
  if (conversion.text === undefined) {
    if (conversion.errors.length === 0)
      io.stderr(`${file}: not converted; --lossy writes the rest without what is listed above\n`);
    return EXIT.invalid;
  }
  io.stdout(conversion.text);
  return EXIT.ok;
}
