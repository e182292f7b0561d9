import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../apiserver/openapi.ts';
import { answerOperations, SEEDED_READS, seedConfig } from './seed-config.ts';
import { WAITING_STEPS, type SeededRun } from './seeded-run.ts';

const SEEDED: SeededRun = {
  name: 'fuzz-parts',
  dagRunId: 'fuzz-parts-1',
  subDAGRunId: 'abc123',
  stepNames: ['write', 'call', ...Object.values(WAITING_STEPS)],
  waiting: WAITING_STEPS,
  artifactPath: 'hello.txt',
};

/** `METHOD /path` of /api/v1's served operations, but the `not served` ones (they answer 501 whatever the ids). */
let served: string[];

beforeAll(async () => {
  const document = (await openApiDocument('t', 'v1')) as {
    paths: Record<string, Record<string, { tags?: string[] }>>;
  };
  served = Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations)
      .filter(([, operation]) => !(operation.tags ?? []).includes('not served'))
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  );
});

/** Python's `re` reads these patterns as JavaScript does (no construct the two read differently). */
const matching = (regex: string): string[] => served.filter((operation) => new RegExp(regex).test(operation)).sort();

describe("the seeded run's bindings", () => {
  it('bind every served operation under a run that takes a sub-run, a step or an artifact path, but the answers', () => {
    const wanted = served
      .filter((o) => /\{subDAGRunId\}|\{stepName\}|\/artifacts|\/log\/download|\/sub-dag-runs$/.test(o))
      .filter((o) => !/\/(approve|reject|push-back)$/.test(o))
      .sort();
    expect(matching(SEEDED_READS)).toEqual(wanted);
  });

  it.each(['approve', 'reject', 'push-back'])('bind %s of the run and of its sub-run, and nothing else', (answer) => {
    expect(matching(answerOperations(answer))).toEqual([
      `POST /api/v1/dag-runs/{name}/{dagRunId}/steps/{stepName}/${answer}`,
      `POST /api/v1/dag-runs/{name}/{dagRunId}/sub-dag-runs/{subDAGRunId}/steps/{stepName}/${answer}`,
    ]);
  });

  it.each(Object.entries(WAITING_STEPS))('give %s its own waiting step, %s', (answer, step) => {
    const config = seedConfig(SEEDED);
    expect(config).toContain(`[dictionaries.seeded-${answer}]\nvalues = [${JSON.stringify(step)}]`);
    const entry = config.slice(config.indexOf(JSON.stringify(answerOperations(answer))));
    expect(entry.split('\n')[1]).toContain(`"path.stepName" = { dictionary = "seeded-${answer}", probability = 0.9 }`);
  });

  it("give the reads the run's ids, every step and the artifact path", () => {
    const config = seedConfig(SEEDED);
    for (const [name, values] of [
      ['seeded-name', '["fuzz-parts"]'],
      ['seeded-run', '["fuzz-parts-1"]'],
      ['seeded-sub-run', '["abc123"]'],
      ['seeded-step', '["write", "call", "wait-approve", "wait-reject", "wait-push-back"]'],
      ['seeded-artifact', '["hello.txt"]'],
    ])
      expect(config).toContain(`[dictionaries.${name}]\nvalues = ${values}`);
    const reads = config.slice(config.indexOf(JSON.stringify(SEEDED_READS))).split('\n')[1] ?? '';
    for (const [parameter, dictionary] of [
      ['path.name', 'seeded-name'],
      ['path.dagRunId', 'seeded-run'],
      ['path.subDAGRunId', 'seeded-sub-run'],
      ['path.stepName', 'seeded-step'],
      ['query.path', 'seeded-artifact'],
    ])
      expect(reads).toContain(`"${parameter}" = { dictionary = "${dictionary}"`);
  });
});
