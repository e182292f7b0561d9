import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dump } from 'js-yaml';
import { dagDetails } from './api.ts';
import { expand } from './expand.ts';
import { formatIssue } from './issues.ts';
import { loadDag } from './load.ts';
import { parseParamOverrides } from './params.ts';
import { checkStructure } from './structure.ts';

/** Arbitrary YAML-ish values, biased towards the keys a DAG uses so that deep paths get exercised. */
const keys = fc.constantFrom(
  'steps',
  'name',
  'command',
  'depends',
  'params',
  'schedule',
  'env',
  'executor',
  'type',
  'config',
  'call',
  'parallel',
  'retryPolicy',
  'repeatPolicy',
  'continueOn',
  'handlerOn',
  'exit',
  'limit',
  'items',
  'Steps',
  'x',
);
const value = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(keys, fc.string()), tie('node'), { maxKeys: 5 }),
  ),
})).node;

const checkLoad = (text: string): void => {
  const load = loadDag(text, { fileName: 'prop' });
  expect(Array.isArray(load.errors)).toBe(true);
  for (const error of load.errors) expect(typeof formatIssue(error)).toBe('string');
  // The partial DAG must always serialise into the API shape.
  JSON.stringify(dagDetails(load.dag));
};

describe('the loader never throws', () => {
  it('on arbitrary text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 400 }), checkLoad), { numRuns: 400 });
  });

  it('on arbitrary YAML documents', () => {
    fc.assert(
      fc.property(value, (v) => {
        checkLoad(dump(v));
      }),
      { numRuns: 600 },
    );
  });

  it('on arbitrary steps lists', () => {
    const steps = fc.array(fc.oneof(fc.string(), value, fc.array(value, { maxLength: 3 })), { maxLength: 6 });
    fc.assert(
      fc.property(steps, fc.constantFrom('chain', 'graph'), (s, type) => {
        checkLoad(dump({ type, steps: s }));
      }),
      { numRuns: 400 },
    );
  });

  it('on arbitrary values straight into the shape check', () => {
    fc.assert(
      fc.property(value, (v) => Array.isArray(checkStructure(v).errors)),
      { numRuns: 400 },
    );
  });
});

describe('other text inputs never throw', () => {
  it('param overrides', () => {
    fc.assert(
      fc.property(fc.string(), (s) => Array.isArray(parseParamOverrides(s).tokens)),
      { numRuns: 400 },
    );
  });

  it('variable expansion, and it is the identity on text without $ or backticks', () => {
    fc.assert(
      fc.property(fc.string(), fc.dictionary(fc.string(), fc.string()), (text, scope) => {
        const got = expand(text, { scopes: [scope], shell: true });
        if (!text.includes('$') && !text.includes('`')) expect(got.value).toBe(text);
      }),
      { numRuns: 400 },
    );
  });
});
