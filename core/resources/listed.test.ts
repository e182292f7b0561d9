import { describe, expect, it } from 'vitest';
import { ANNOTATIONS } from './constants.ts';
import { listedDagName } from './listed.ts';

describe('listedDagName', () => {
  it('prefers the rename annotation, then spec.dagName, then the referenced DAG', () => {
    expect(
      listedDagName({
        metadata: { annotations: { [ANNOTATIONS.dagName]: 'renamed' } },
        spec: { dagName: 'old', dagRef: { name: 'ref' } },
      }),
    ).toBe('renamed');
    expect(listedDagName({ metadata: {}, spec: { dagName: 'own', dagRef: { name: 'ref' } } })).toBe('own');
    expect(listedDagName({ metadata: {}, spec: { dagRef: { name: 'ref' } } })).toBe('ref');
    expect(listedDagName({ metadata: {}, spec: {} })).toBe('');
  });
});
