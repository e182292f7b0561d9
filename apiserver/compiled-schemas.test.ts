import { describe, expect, it } from 'vitest';
import { CompiledTable, serializerFactory, validatorFor } from './compiled-schemas.ts';

const schema = (): object => ({ type: 'object', properties: { n: { type: 'integer' } } });
const route = (s: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema: s });

describe('CompiledTable', () => {
  it('compiles a key once and drops the oldest past its bound', () => {
    const table = new CompiledTable<number>(2);
    let compiled = 0;
    const get = (key: string): number => table.get(key, () => ++compiled);
    expect([get('a'), get('a'), get('b'), get('c')]).toEqual([1, 1, 2, 3]);
    expect(table.size).toBe(2);
    expect(get('a')).toBe(4);
    expect(get('c')).toBe(3);
  });
});

describe('validatorFor', () => {
  it('shares one validator between equal schemas, and keeps body and text apart', () => {
    const body = validatorFor({ schema: schema(), httpPart: 'body' });
    expect(validatorFor({ schema: schema(), httpPart: 'body' })).toBe(body);
    const query = validatorFor({ schema: schema(), httpPart: 'querystring' });
    expect(query).not.toBe(body);
    // A body is never coerced; a query string's integer comes as text.
    expect(body({ n: '5' })).toBe(false);
    const text = { n: '5' };
    expect(query(text)).toBe(true);
    expect(text.n).toBe(5);
  });
});

describe('serializerFactory', () => {
  const shared = { Item: { $id: 'Item', type: 'object', properties: { a: { type: 'string' } } } };

  it('shares one serializer between equal schemas under the same shared schemas', () => {
    const one = serializerFactory(shared)(route(schema()));
    expect(serializerFactory({ ...shared })(route(schema()))).toBe(one);
    expect(one({ n: 3, extra: true })).toBe('{"n":3}');
  });

  it('compiles again where the shared schemas differ', () => {
    const ref = { $ref: 'Item#' };
    const a = serializerFactory(shared)(route(ref));
    const other = { Item: { $id: 'Item', type: 'object', properties: { b: { type: 'string' } } } };
    const b = serializerFactory(other)(route(ref));
    expect(b).not.toBe(a);
    expect([a({ a: 'x', b: 'y' }), b({ a: 'x', b: 'y' })]).toEqual(['{"a":"x"}', '{"b":"y"}']);
  });
});
