import { describe, expect, it } from 'vitest';
import { indexProblems } from './decisions-index.ts';
import { anchorsOf, linksOf, slug } from './docs-links.ts';
import { chartValuesRows } from './reference-docs.ts';

describe('docs links', () => {
  it('makes the anchors GitHub makes', () => {
    expect(slug('The `kubedag` CLI')).toBe('the-kubedag-cli');
    expect(slug('Schedules, queues, high availability and retention')).toBe(
      'schedules-queues-high-availability-and-retention',
    );
    expect(anchorsOf('# Title\n\n```sh\n# not a heading\n```\n## Step logs on S3\n')).toEqual(
      new Set(['title', 'step-logs-on-s3']),
    );
  });

  it('reads relative links outside code blocks', () => {
    expect(linksOf('[a](api.md) [b](https://x.io) [c](../README.md#prerequisites)\n```\n[d](gone.md)\n```\n')).toEqual([
      'api.md',
      '../README.md#prerequisites',
    ]);
  });
});

describe('indexes', () => {
  it('names the folder of a note without a line, and a line without a note', () => {
    expect(
      indexProblems(
        ['2026-01-01-a.md', '2026-01-02-b.md'],
        '| [a](2026-01-01-a.md) | [c](2026-01-03-c.md) | [up](../README.md) |',
        'docs/reports',
      ),
    ).toEqual([
      'docs/reports/2026-01-02-b.md has no line in docs/reports/README.md',
      'docs/reports/README.md links 2026-01-03-c.md, which is not there',
    ]);
  });
});

describe('chart values', () => {
  const schema = {
    properties: {
      image: { type: 'object', properties: { pullPolicy: { enum: ['Always', 'Never'] } } },
      operator: {
        type: 'object',
        properties: { replicas: { type: 'integer', minimum: 0 }, httpPort: { $ref: '#/definitions/port' } },
      },
    },
    definitions: { port: { type: 'integer', minimum: 1, maximum: 65535 } },
  };

  it('gives each key its path, default, allowed values and the comment above it', () => {
    const values = [
      '# The image.',
      'image:',
      '  pullPolicy: Never',
      '',
      'operator:',
      '  # How many.',
      '  # Two for failover.',
      '  replicas: 1',
      '  httpPort: 8081',
      '  tag: ""',
      '',
    ].join('\n');
    expect(chartValuesRows(values, schema)).toEqual([
      '| `image` |  | object | The image. |',
      '| `image.pullPolicy` | `Never` | `Always`, `Never` |  |',
      '| `operator` |  | object |  |',
      '| `operator.replicas` | `1` | integer >= 0 | How many. Two for failover. |',
      '| `operator.httpPort` | `8081` | integer from 1 to 65535 |  |',
      '| `operator.tag` | `""` (empty) |  |  |',
    ]);
  });
});
