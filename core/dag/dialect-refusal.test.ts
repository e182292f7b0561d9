import { describe, expect, it } from 'vitest';
import { REFUSED_ACTIONS } from './dialect-actions.ts';
import { REFUSED_TYPES } from './dialect-commands.ts';
import { REFUSED as CONTAINER_KEYS } from './dialect-container.ts';
import { fileOutputWhy, referenceWhy, severalCommandsWhy, TEMPLATE_REF_WHY } from './dialect-refusal-narrow.ts';
import { DELIBERATE, isRefusal, refusal, type DeliberateFeature } from './dialect-refusal.ts';
import { REFUSED_FEATURES, REFUSED_SETTINGS } from './dialect-spellings.ts';
import { REFUSED_DAG_TYPES } from './dialect.ts';

/** Every feature name the refusal tables hand to refusal() without a `why`. */
const TABLED: (readonly [table: string, feature: DeliberateFeature])[] = [
  ...Object.values(REFUSED_FEATURES).flatMap((scope) => Object.values(scope).map((f) => ['REFUSED', f] as const)),
  ...Object.values(REFUSED_SETTINGS).flatMap((type) =>
    Object.values(type).map((f) => ['REFUSED_SETTINGS', f] as const),
  ),
  ...Object.values(REFUSED_ACTIONS).map((f) => ['REFUSED_ACTIONS', f] as const),
  ...Object.values(REFUSED_TYPES).map((f) => ['REFUSED_TYPES', f] as const),
  ...Object.values(REFUSED_DAG_TYPES).map((f) => ['REFUSED_DAG_TYPES', f] as const),
  ...Object.values(CONTAINER_KEYS).flatMap((entry) =>
    entry.length === 1 ? [['container REFUSED', entry[0]] as const] : [],
  ),
];

/** A reason that says something: words, not a placeholder. */
const REASON = /^\S.{19,}$/;

describe('refusals by name', () => {
  it.each(TABLED)('%s: %s is refused with its reason', (_table, feature) => {
    const error = refusal('x', feature);
    expect(error.message).toBe(`Dagu 2.x feature ${feature} is not supported: ${DELIBERATE[feature]}`);
    expect(DELIBERATE[feature]).toMatch(REASON);
    expect(isRefusal(error)).toBe(true);
  });

  it('has a reason for every DELIBERATE feature', () => {
    expect(Object.entries(DELIBERATE).filter(([, why]) => !REASON.test(why))).toEqual([]);
  });

  it.each([
    ['fileOutputWhy (sub-DAG)', fileOutputWhy('a sub-DAG step')],
    ['fileOutputWhy (elsewhere)', fileOutputWhy('a step of type ssh')],
    ['severalCommandsWhy (a step type)', severalCommandsWhy(undefined)],
    ['severalCommandsWhy (a shell)', severalCommandsWhy('python3')],
    ['referenceWhy (steps)', referenceWhy('steps')],
    ['referenceWhy (params)', referenceWhy('params')],
    ['TEMPLATE_REF_WHY', TEMPLATE_REF_WHY],
  ])('%s is a reason', (_name, why) => {
    expect(why).toMatch(REASON);
  });

  it('throws for a feature without a reason, which only a cast around the types can pass', () => {
    expect(() => refusal('x', 'something new' as DeliberateFeature)).toThrow('refusal of something new has no reason');
  });

  it.each([
    ['Dagu 2.x feature tools is not supported: Kubedag runs no LLM agents', true],
    ['Dagu 2.x feature tools is not supported yet', false],
    ['steps must be a list', false],
  ])('isRefusal(%j) is %s', (message, want) => {
    expect(isRefusal({ path: 'x', message })).toBe(want);
  });
});
