import { describe, expect, it } from 'vitest';
import { customResourceDefinition, KINDS } from './crds.ts';

/** Paths of empty lists and mappings, but for `subresources.status: {}` (which means "on"). */
function emptyCollections(value: unknown, path: string): string[] {
  if (value === null || typeof value !== 'object') return [];
  const entries = Object.entries(value);
  if (entries.length === 0) return path.endsWith('.subresources.status') ? [] : [path];
  return entries.flatMap(([key, child]) => emptyCollections(child, `${path}.${key}`));
}

describe('the CRDs as written', () => {
  // The API server drops empty lists and maps (Go's omitempty). A CRD file holding one is stored
  // differently from how it is written, and Helm's server-side apply then reports a conflict with
  // the manager that created it (the real-node e2e failed on `properties: {}`).
  it.each(KINDS.map((kind) => [kind.kind, kind] as const))('%s holds no empty list or mapping', (_name, kind) => {
    expect(emptyCollections(customResourceDefinition(kind), '')).toEqual([]);
  });
});
