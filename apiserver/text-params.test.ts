import { describe, expect, it } from 'vitest';
import { integerProperties, nonIntegerText } from './text-params.ts';

describe('integer parameters', () => {
  it('are the properties typed integer', () => {
    expect(
      integerProperties({
        properties: { page: { type: 'integer' }, name: { type: 'string' }, ratio: { type: 'number' } },
      }),
    ).toEqual(['page']);
  });

  it.each([
    { name: 'digits are an integer', data: { page: '12' }, want: undefined },
    { name: 'a sign is allowed', data: { page: '-3' }, want: undefined },
    { name: 'a decimal point is not', data: { page: '1.0' }, want: { name: 'page', value: '1.0' } },
    { name: 'an exponent is not', data: { page: '1e2' }, want: { name: 'page', value: '1e2' } },
    { name: 'an empty value is not', data: { page: '' }, want: { name: 'page', value: '' } },
    { name: 'each repeated value is checked', data: { page: ['2', 'x'] }, want: { name: 'page', value: 'x' } },
    { name: 'an absent parameter is fine', data: {}, want: undefined },
    { name: 'other parameters are not looked at', data: { name: '1.5' }, want: undefined },
  ])('$name', ({ data, want }) => {
    expect(nonIntegerText(data, ['page'])).toEqual(want);
  });
});
