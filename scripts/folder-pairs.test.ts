import { describe, expect, it } from 'vitest';
import { tangledPairs } from './folder-pairs.ts';

const edge = (from: string, to: string) => ({ from, to });

describe('tangledPairs', () => {
  it.each([
    ['two sibling folders importing each other', [edge('a/x.ts', 'b/y.ts'), edge('b/y.ts', 'a/z.ts')], [['a', 'b']]],
    ['one direction only', [edge('a/x.ts', 'b/y.ts'), edge('a/z.ts', 'b/w.ts')], []],
    ['a folder and its subfolder', [edge('a/x.ts', 'a/sub/y.ts'), edge('a/sub/y.ts', 'a/z.ts')], []],
    ['a file and its neighbour', [edge('a/x.ts', 'a/y.ts'), edge('a/y.ts', 'a/x.ts')], []],
    ['cousins under one parent', [edge('p/a/x.ts', 'p/b/y.ts'), edge('p/b/w.ts', 'p/a/v.ts')], [['p/a', 'p/b']]],
    ['a root file and a folder', [edge('x.ts', 'a/y.ts'), edge('a/y.ts', 'z.ts')], []],
  ])('%s', (_, imports, expected) => {
    expect(tangledPairs(imports).map((p) => p.pair)).toEqual(expected);
  });

  it('names one import each way as proof', () => {
    const [found] = tangledPairs([edge('a/x.ts', 'b/y.ts'), edge('b/y.ts', 'a/z.ts')]);
    expect(found?.proof).toEqual([edge('a/x.ts', 'b/y.ts'), edge('b/y.ts', 'a/z.ts')]);
  });
});
