import { describe, expect, it } from 'vitest';
import { isExactRef, templateRefKind } from './dialect-template-ref.ts';

describe("template_ref's reference, as Dagu's parseExactRef reads it", () => {
  it.each([
    ['${env.NAME}', true],
    ['${consts.TPL}', true],
    ['${params.TPL}', true],
    ['${steps.make.outputs.tpl}', true],
    ['${foreach.item}', true],
    ['${params}', false],
    ['${params.a.b}', false],
    ['${NAME}', false],
    ['$NAME', false],
    ['${env.NAME} ', false],
    ['x${env.NAME}', false],
    ['${env.A}${env.B}', false],
    ['${secrets.X}', false],
    ['${ env.NAME }', false],
    ['Hello {{ .name }}', false],
  ])('%s is an exact reference: %s', (text, exact) => {
    expect(isExactRef(text)).toBe(exact);
  });

  it.each([
    ['${TPL}', 'variable'],
    ['${steps.make.outputs.tpl}', 'step-output'],
    ['${foreach.item}', 'unresolved'],
    ['{{ .a }}', 'text'],
  ] as const)('after the rewrite %s is a %s', (text, kind) => {
    expect(templateRefKind(text)).toBe(kind);
  });
});
