import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { load as parseYaml } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { dagDetails } from './api.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { dagSchema, stepSchema } from './schema.ts';
import { checkStructure } from './structure.ts';

const root = join(import.meta.dirname, '../..');
const fixtures = join(root, 'test/fixtures/dags');
const goldens = join(root, 'test/fixtures/golden');
const files = readdirSync(fixtures)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const update = process.env.UPDATE_GOLDEN === '1';

const loadFixture = (file: string): ReturnType<typeof loadDag> =>
  loadDag(readFileSync(join(fixtures, file), 'utf8'), { fileName: file.replace(/\.yaml$/, '') });

describe('fixture DAG files', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  it.each(files)('%s is valid', (file) => {
    expect(loadFixture(file).errors.map(formatIssue)).toEqual([]);
  });

  it.each(files)('%s normalises to its golden model and API details', (file) => {
    const load = loadFixture(file);
    const actual = `${JSON.stringify({ dag: load.dag, localDags: load.localDags, warnings: load.warnings.map(formatIssue), details: dagDetails(load.dag) }, null, 2)}\n`;
    const path = join(goldens, file.replace(/\.yaml$/, '.json'));
    if (update) writeFileSync(path, actual);
    expect(actual).toBe(readFileSync(path, 'utf8'));
  });

  it('together use every root key and every step key of the format', () => {
    const rootKeys = new Set<string>();
    const stepKeys = new Set<string>();
    const visitStep = (step: unknown): void => {
      if (Array.isArray(step)) step.forEach(visitStep);
      else if (step !== null && typeof step === 'object') Object.keys(step).forEach((k) => stepKeys.add(k));
    };
    for (const file of files) {
      for (const document of loadFixture(file).documents) {
        const canonical = checkStructure(document).value as Record<string, unknown>;
        Object.keys(canonical).forEach((k) => rootKeys.add(k));
        const steps = canonical.steps;
        if (Array.isArray(steps)) steps.forEach(visitStep);
        else if (steps !== null && typeof steps === 'object') Object.values(steps).forEach(visitStep);
        Object.values(canonical.handlerOn ?? {}).forEach(visitStep);
      }
    }
    // `s3` (the s3.* actions' connection defaults) and `artifacts` have no 1.x form and mark a file as
    // 2.x: builtin-executors.test.ts, the s3 executor's tests and the artifacts tests cover them.
    const twoXRoot = ['s3', 'artifacts', 'waitMail'];
    expect(Object.keys(dagSchema.properties).filter((k) => !rootKeys.has(k) && !twoXRoot.includes(k))).toEqual([]);
    // `outputs` (declared outputs), `approval`, `enqueue` (dag.enqueue) and `output_schema` mark a file as Dagu 2.x: the dialect fixture pairs and the action tests cover them.
    const twoX = ['outputs', 'approval', 'enqueue', 'output_schema'];
    expect(Object.keys(stepSchema.properties).filter((k) => !stepKeys.has(k) && !twoX.includes(k))).toEqual([]);
  });

  it('are accepted by the published JSON Schema once keys are spelled canonically', () => {
    const schema = JSON.parse(readFileSync(join(root, 'schemas/dag.schema.json'), 'utf8')) as object;
    const validate = new Ajv({ strict: false }).compile(schema);
    for (const file of files) {
      for (const document of loadFixture(file).documents) {
        expect(validate(checkStructure(document).value), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
    expect(validate(parseYaml('steps: [{comand: x}]'))).toBe(false);
  });
});
