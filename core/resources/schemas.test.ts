import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { kubeObject } from '../dag/kube-object.ts';
import { DEFINITION } from '../dag/schema-builders.ts';
import { dagSpecSchema } from './schemas.ts';
import { structural } from './structural.ts';

describe('structural, a JSON Schema made acceptable to Kubernetes', () => {
  it('leaves polymorphic fields out and lets their object keep unknown fields', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'string' }, b: { anyOf: [{ type: 'string' }, { type: 'array' }] } },
    };
    expect(structural(schema)).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { a: { type: 'string' } },
    });
  });

  it('types enums and turns pattern maps into additionalProperties', () => {
    expect(
      structural({
        type: 'object',
        properties: {
          e: { enum: ['x', 'y'] },
          m: { type: 'object', patternProperties: { '^.*$': { type: 'string' } } },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        e: { enum: ['x', 'y'], type: 'string' },
        m: { type: 'object', additionalProperties: { type: 'string' } },
      },
    });
  });

  it('drops a list whose items can be anything', () => {
    expect(
      structural({
        type: 'object',
        properties: { l: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'object' }] } } },
      }),
    ).toEqual({
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  it('leaves the snake_case twins of kubernetes keys out and keeps such keys as written', () => {
    expect(structural(kubeObject({ runAsUser: Type.Optional(Type.Integer()) }, 'ids'))).toEqual({
      type: 'object',
      description: 'ids',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { runAsUser: { type: 'integer' } },
    });
  });

  it('keeps unknown keys of a kubernetes mapping without twins, so that core/dag reports a misspelt key', () => {
    expect(structural(kubeObject({ limits: Type.Optional(Type.String()) }, 'resources'))).toEqual({
      type: 'object',
      description: 'resources',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: { limits: { type: 'string' } },
    });
  });

  it('describes a shared Kubernetes object without typing it, and keeps the step typed', () => {
    const affinity = {
      type: 'object',
      description: 'rules',
      [DEFINITION]: 'kubernetesAffinity',
      properties: { nodeAffinity: { type: 'object' } },
    };
    const step = {
      type: 'object',
      description: 'a step',
      [DEFINITION]: 'step',
      properties: { name: { type: 'string' } },
    };
    expect([structural(affinity), structural(step)]).toEqual([
      { type: 'object', description: 'rules', 'x-kubernetes-preserve-unknown-fields': true },
      { type: 'object', description: 'a step', properties: { name: { type: 'string' } } },
    ]);
  });

  it('gives the DAG spec a described kubernetes block and no keyword of our own', () => {
    const spec = dagSpecSchema as unknown as {
      properties: Record<string, { description?: string; properties?: object }>;
    };
    const block = spec.properties.kubernetes;
    expect(Object.keys(block?.properties ?? {})).toContain('imagePullPolicy');
    expect(block?.description).toMatch(/Pod settings of every step/);
    expect(JSON.stringify(dagSpecSchema)).not.toContain('x-kubedag-');
  });
});
