import { describe, expect, it } from 'vitest';
import { structural } from './schemas.ts';

describe('structural, a JSON Schema made acceptable to Kubernetes', () => {
  it('leaves polymorphic fields out and lets their object keep unknown fields', () => {
    const schema = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' }, b: { anyOf: [{ type: 'string' }, { type: 'array' }] } } };
    expect(structural(schema)).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string' } } });
  });

  it('types enums and turns pattern maps into additionalProperties', () => {
    expect(structural({ type: 'object', properties: { e: { enum: ['x', 'y'] }, m: { type: 'object', patternProperties: { '^.*$': { type: 'string' } } } } })).toEqual({
      type: 'object',
      properties: { e: { enum: ['x', 'y'], type: 'string' }, m: { type: 'object', additionalProperties: { type: 'string' } } },
    });
  });

  it('drops a list whose items can be anything', () => {
    expect(structural({ type: 'object', properties: { l: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object' }] } } } })).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {},
    });
  });
});
