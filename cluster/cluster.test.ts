import { describe, expect, it } from 'vitest';
import { parseNodes } from './cluster.ts';

describe('parseNodes', () => {
  it('reads names with optional labels', () => {
    expect(parseNodes('a, b:gpu=true;zone=eu-1')).toEqual([
      { name: 'a', labels: {} },
      { name: 'b', labels: { gpu: 'true', zone: 'eu-1' } },
    ]);
  });
});
