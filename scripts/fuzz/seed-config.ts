/**
 * The part of schemathesis's configuration that only the running stack knows: the seeded run's
 * ids (seeded-run.ts) as dictionaries bound to the path and query parameters of the operations
 * that read a run's parts or answer its waiting steps. schemathesis puts a bound value in with
 * the given probability and generates the parameter as usual otherwise, so these operations
 * meet the real run most of the time and still meet unknown ids, blanks and bad input. Appended
 * to the checked-in schemathesis.toml for one run (schemathesis.ts). Pure.
 */
import type { SeededRun } from './seeded-run.ts';

const RUN = '/api/v[12]/dag-runs/\\{name\\}/\\{dagRunId\\}';

/** The reads bound: everything under a run that names a sub-run, a step, an artifact or a download. */
export const SEEDED_READS = `^(GET|PATCH) ${RUN}/(sub-dag-runs|children|steps|artifacts|log/download)`;

/** An answer's operations (of the run and of its sub-run), each bound to its own waiting step. */
export const answerOperations = (answer: string): string =>
  `^POST ${RUN}/(sub-dag-runs/\\{subDAGRunId\\}/)?steps/\\{stepName\\}/${answer}$`;

/** How often a bound parameter takes the seeded value (each parameter drawn on its own). */
export const SEEDED_PROBABILITY = 0.9;

/** A TOML basic string: JSON's escapes are TOML's for the text these values hold. */
const str = (value: string): string => JSON.stringify(value);

/** One `[[operations]]` entry binding each parameter to a dictionary. */
function bound(regex: string, bindings: Readonly<Record<string, string>>): string[] {
  const each = Object.entries(bindings).map(
    ([key, dictionary]) =>
      `${str(key)} = { dictionary = ${str(dictionary)}, probability = ${String(SEEDED_PROBABILITY)} }`,
  );
  return ['[[operations]]', `include-name-regex = ${str(regex)}`, `parameters = { ${each.join(', ')} }`];
}

export function seedConfig(seeded: SeededRun): string {
  const dictionaries: Record<string, readonly string[]> = {
    'seeded-name': [seeded.name],
    'seeded-run': [seeded.dagRunId],
    'seeded-sub-run': [seeded.subDAGRunId],
    'seeded-step': seeded.stepNames,
    'seeded-artifact': [seeded.artifactPath],
    ...Object.fromEntries(Object.entries(seeded.waiting).map(([answer, step]) => [`seeded-${answer}`, [step]])),
  };
  const run = { 'path.name': 'seeded-name', 'path.dagRunId': 'seeded-run', 'path.subDAGRunId': 'seeded-sub-run' };
  return [
    '',
    '# Generated for this run from the seeded run (scripts/fuzz/seed-config.ts).',
    ...Object.entries(dictionaries).flatMap(([name, values]) => [
      `[dictionaries.${name}]`,
      `values = [${values.map(str).join(', ')}]`,
    ]),
    ...bound(SEEDED_READS, { ...run, 'path.stepName': 'seeded-step', 'query.path': 'seeded-artifact' }),
    ...Object.keys(seeded.waiting).flatMap((answer) =>
      bound(answerOperations(answer), { ...run, 'path.stepName': `seeded-${answer}` }),
    ),
    '',
  ].join('\n');
}
