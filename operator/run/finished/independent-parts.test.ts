import { describe, expect, it } from 'vitest';
import { IndependentParts } from './independent-parts.ts';

describe('independent parts', () => {
  it('runs every part when an earlier one throws, then throws its failure named', async () => {
    const ran: string[] = [];
    const parts = new IndependentParts();
    await parts.run('cleanup', () => Promise.reject(new Error('the API refused')));
    const value = await parts.run('export', () => {
      ran.push('export');
      return Promise.resolve(7);
    });
    expect([ran, value]).toEqual([['export'], 7]);
    expect(() => {
      parts.settle();
    }).toThrow('cleanup: the API refused');
  });

  it('throws all failures together, and nothing when every part succeeded', async () => {
    const parts = new IndependentParts();
    await parts.run('a', () => Promise.reject(new Error('one')));
    await parts.run('b', () => Promise.reject(new Error('two')));
    expect(() => {
      parts.settle();
    }).toThrow('a: one; b: two');
    const fine = new IndependentParts();
    await fine.run('c', () => Promise.resolve());
    expect(() => {
      fine.settle();
    }).not.toThrow();
  });
});
