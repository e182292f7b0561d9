import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { SPELLINGS } from './dialect-spellings.ts';
import { DAG_SCHEMA_ID, dagJsonSchema, DIALECT_DEFINITIONS } from './schema.ts';

const dir = join(import.meta.dirname, '../../test/fixtures/dialect');
const schema = dagJsonSchema();
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addSchema(schema);
const validator = (dialect: '1.x' | '2.x' | 'either') => {
  const ref = dialect === 'either' ? DAG_SCHEMA_ID : `${DAG_SCHEMA_ID}#/definitions/${DIALECT_DEFINITIONS[dialect]}`;
  const validate = ajv.getSchema(ref);
  if (validate === undefined) throw new Error(`no schema at ${ref}`);
  return (document: unknown): string[] =>
    validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
};
const definitions = schema.definitions as Record<string, { properties: Record<string, unknown> }>;

describe('the published DAG JSON Schema', () => {
  const fixtures = readdirSync(dir).filter((file) => file.endsWith('.yaml'));
  it.each(fixtures)('accepts every document of the dialect fixture %s in its own dialect and as either', (file) => {
    const dialect = file.endsWith('.2x.yaml') ? '2.x' : '1.x';
    for (const document of loadAll(readFileSync(join(dir, file), 'utf8'))) {
      expect(validator(dialect)(document)).toEqual([]);
      expect(validator('either')(document)).toEqual([]);
    }
  });

  it('spells every key of the 2.x definitions as 2.x writes it, and none as 1.x does', () => {
    const dag = definitions.dag2x?.properties ?? {};
    const step = definitions.step2x?.properties ?? {};
    for (const [twoX, oneX] of Object.entries(SPELLINGS.root)) {
      expect(dag).toHaveProperty(twoX);
      expect(dag).not.toHaveProperty(oneX);
    }
    for (const [twoX, oneX] of Object.entries(SPELLINGS.step)) {
      expect(step).toHaveProperty(twoX);
      expect(step).not.toHaveProperty(oneX);
    }
    expect(Object.keys(definitions.dag2x?.properties.handler_on ?? {})).not.toContain('cancel');
    expect(step).not.toHaveProperty('executor');
    expect(step).not.toHaveProperty('dir');
  });

  it.each([
    ['a 1.x key in a 2.x document', '2.x', { steps: [{ run: 'echo hi', workingDir: '/tmp' }] }],
    ['a 2.x key in a 1.x document', '1.x', { steps: [{ command: 'echo hi', working_dir: '/tmp' }] }],
    ['a 1.x handler in a 2.x document', '2.x', { handler_on: { cancel: { run: 'echo bye' } } }],
    ['a nested 1.x key in a 2.x document', '2.x', { steps: [{ run: 'x', retry_policy: { intervalSec: 1 } }] }],
  ] as const)('refuses %s', (_name, dialect, document) => {
    expect(validator(dialect)(document)).not.toEqual([]);
  });

  it('refuses a misspelt key in either dialect', () => {
    expect(validator('either')({ steps: [{ comand: 'echo hi' }] })).not.toEqual([]);
  });

  it('takes typed params and step defaults only in 2.x keys', () => {
    const document = {
      params: [{ name: 'region', type: 'string', default: 'eu', enum: ['eu', 'us'] }],
      defaults: { timeout_sec: 5, retry_policy: { limit: 2, interval_sec: 1 } },
      steps: [{ id: 'a', run: 'echo ${params.region}' }],
    };
    expect(validator('2.x')(document)).toEqual([]);
    expect(validator('2.x')({ ...document, defaults: { timeoutSec: 5 } })).not.toEqual([]);
  });
});
