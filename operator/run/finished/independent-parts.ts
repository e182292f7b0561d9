/**
 * Work made of parts that do not depend on each other, such as what a finished run is owed (its
 * container Pod removed, its trace exported, its mails sent): each part runs even when an
 * earlier one throws, and the failures are thrown together afterwards, so the work queue retries
 * the whole (every part is level-triggered and idempotent) while no failure skips another part.
 */
import { errorMessage } from '../../../core/log.ts';

export class IndependentParts {
  private readonly failures: Error[] = [];

  /** Runs one part; its failure is kept for `settle`, its result undefined then. */
  async run<T>(what: string, part: () => Promise<T>): Promise<T | undefined> {
    try {
      return await part();
    } catch (error) {
      this.failures.push(new Error(`${what}: ${errorMessage(error)}`, { cause: error }));
      return undefined;
    }
  }

  /** Throws the parts' failures together, if any. */
  settle(): void {
    const [first, ...rest] = this.failures;
    if (first === undefined) return;
    if (rest.length === 0) throw first;
    throw new AggregateError(this.failures, this.failures.map((f) => f.message).join('; '));
  }
}
