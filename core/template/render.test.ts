import { describe, expect, it } from 'vitest';
import { parseTemplate } from './parse.ts';
import { renderTemplate } from './render.ts';

const render = (template: string, data: unknown): string => renderTemplate(parseTemplate(template), data);

const DATA = {
  name: 'report',
  env: 'prod',
  count: 3,
  tags: ['a', 'b'],
  servers: [
    { host: 'db1', port: 5432 },
    { host: 'db2', port: 5433 },
  ],
  owner: { team: 'data' },
  empty: '',
};

describe('template.render (a subset of Go text/template)', () => {
  it.each([
    [
      'fields, nested fields and the root',
      'Hello {{ .name }} of {{ .owner.team }} ({{ $.env }})',
      'Hello report of data (prod)',
    ],
    [
      'pipelines with functions, pipeline value last',
      '{{ .name | upper }} {{ join "," .tags }} {{ .empty | default "none" }}',
      'REPORT a,b none',
    ],
    ['if, else if and else', '{{ if eq .env "dev" }}D{{ else if eq .env "prod" }}P{{ else }}?{{ end }}', 'P'],
    [
      'range with index and value, and trimming',
      '{{- range $i, $s := .servers }}\n{{ $i }}={{ $s.host }}:{{ .port }}{{ end }}',
      '\n0=db1:5432\n1=db2:5433',
    ],
    ['range else over an empty list', '{{ range .missing_list_ok }}x{{ else }}none{{ end }}', 'none'],
    ['with that moves the dot, and comments', '{{/* who */}}{{ with .owner }}{{ .team }}{{ end }}', 'data'],
    [
      'printf, len, index and arithmetic',
      '{{ printf "%s has %d" .name (len .tags) }} {{ index .tags 1 }} {{ add 1 .count }}',
      'report has 2 b 4',
    ],
    ["Go's %v of lists, maps and nil", '{{ .tags }} {{ .owner }} {{ .nothing }}', '[a b] map[team:data] <no value>'],
  ])('renders %s', (_name, template, want) => {
    const data = { ...DATA, missing_list_ok: [], nothing: null };
    expect(render(template, data)).toBe(want);
  });

  it('fails on a missing key, as Dagu renders with missingkey=error', () => {
    expect(() => render('{{ .nope }}', DATA)).toThrow('map has no entry for key "nope"');
  });

  it.each([
    ['a function it does not have', '{{ .name | sha256sum }}', 'function "sha256sum" not defined'],
    ['define and template', '{{ define "x" }}a{{ end }}', '{{define}} is not supported'],
    ['a variable outside range', '{{ $x := .name }}', 'variables are not supported'],
    ['an if without end', '{{ if .name }}x', 'without {{end}}'],
    ['an unclosed action', 'a {{ .name', 'unclosed action'],
  ])('refuses %s when it is parsed', (_name, template, message) => {
    expect(() => parseTemplate(template)).toThrow(message);
  });
});
