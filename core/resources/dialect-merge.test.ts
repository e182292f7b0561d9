import { describe, expect, it } from 'vitest';
import { mergeStructural } from './dialect-merge.ts';
import { dagSpecSchema } from './schemas.ts';

const mapping = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});

describe('mergeStructural', () => {
  it('keeps the keys of both, merging a mapping both name', () => {
    const a = mapping({ container: mapping({ workingDir: { type: 'string' } }), timeoutSec: { type: 'integer' } });
    const b = mapping({ container: mapping({ working_dir: { type: 'string' } }), timeout_sec: { type: 'integer' } });
    expect(mergeStructural(a, b)).toEqual(
      mapping({
        container: mapping({ workingDir: { type: 'string' }, working_dir: { type: 'string' } }),
        timeoutSec: { type: 'integer' },
        timeout_sec: { type: 'integer' },
      }),
    );
  });

  it('leaves out a field the two type differently, and keeps it as written', () => {
    const merged = mergeStructural(mapping({ run: { type: 'string' } }), mapping({ run: { type: 'array' } }));
    expect(merged).toEqual({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
  });
});

describe("the DAG resource's spec schema", () => {
  it('types the keys of both dialects, in the mappings they share too', () => {
    const properties = (
      dagSpecSchema as unknown as { properties: Record<string, { properties?: Record<string, unknown> }> }
    ).properties;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(['timeoutSec', 'timeout_sec', 'container']));
    expect(Object.keys(properties.container?.properties ?? {})).toEqual(
      expect.arrayContaining(['workingDir', 'working_dir', 'keepContainer', 'keep_container']),
    );
    expect(Object.keys(properties.ssh?.properties ?? {})).toEqual(
      expect.arrayContaining(['strictHostKey', 'strict_host_key']),
    );
  });
});
