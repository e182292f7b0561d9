import { describe, expect, it } from 'vitest';
import { compareQuantities, isWhole, parseQuantity, quantityText, type Quantity } from './quantity.ts';

const value = (text: string): Quantity => {
  const parsed = parseQuantity(text);
  if (typeof parsed === 'string') throw new Error(parsed);
  return parsed;
};
const fraction = (text: string): string => {
  const { numerator, denominator } = value(text);
  return `${String(numerator)}/${String(denominator)}`;
};

describe('parseQuantity reads quantities as the API server does', () => {
  const cases: { name: string; text: string; want: string }[] = [
    { name: 'a plain integer is itself', text: '2', want: '2/1' },
    { name: 'millis are thousandths', text: '500m', want: '500/1000' },
    { name: 'a decimal fraction is exact', text: '0.1', want: '1/10' },
    { name: 'a binary suffix multiplies by a power of two', text: '1.5Gi', want: '16106127360/10' },
    { name: 'Ki is 1024', text: '1Ki', want: '1024/1' },
    { name: 'a decimal suffix multiplies by a power of ten', text: '2M', want: '2000000/1' },
    { name: 'nano is the smallest decimal suffix', text: '3n', want: '3/1000000000' },
    { name: 'an exponent is a power of ten', text: '1e3', want: '1000/1' },
    { name: 'an upper-case exponent may be negative', text: '25E-1', want: '25/10' },
    { name: 'E alone is exa, not an exponent', text: '1E', want: '1000000000000000000/1' },
    { name: 'a number may start with a point', text: '.5', want: '5/10' },
    { name: 'a number may end with a point', text: '5.', want: '5/1' },
    { name: 'a sign is part of the number', text: '-1k', want: '-1000/1' },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(fraction(text)).toBe(want);
  });
});

describe('parseQuantity says why a text is not a quantity', () => {
  const cases: { name: string; text: string; want: string }[] = [
    {
      name: 'a unit Kubernetes does not know',
      text: '1GB',
      want: '"1GB" is not a quantity such as 500m, 1.5Gi, 2 or 1e3',
    },
    { name: 'a lower-case binary suffix', text: '1gi', want: '"1gi" is not a quantity such as 500m, 1.5Gi, 2 or 1e3' },
    { name: 'white space inside', text: '1 Gi', want: '"1 Gi" is not a quantity such as 500m, 1.5Gi, 2 or 1e3' },
    { name: 'a suffix without a number', text: 'Mi', want: '"Mi" is not a quantity such as 500m, 1.5Gi, 2 or 1e3' },
    { name: 'an exponent without digits', text: '1e', want: '"1e" is not a quantity such as 500m, 1.5Gi, 2 or 1e3' },
    { name: 'an exponent too large to be an amount', text: '1e400', want: '"1e400" is out of range' },
    { name: 'a value past what Kubernetes stores', text: '9Ei', want: '"9Ei" is too large (at most 2^63-1)' },
  ];
  it.each(cases)('$name', ({ text, want }) => {
    expect(parseQuantity(text)).toBe(want);
  });
});

describe('compareQuantities orders values, whatever their spelling', () => {
  const cases: { name: string; a: string; b: string; want: -1 | 0 | 1 }[] = [
    { name: '100m equals 0.1', a: '100m', b: '0.1', want: 0 },
    { name: '1Gi is more than 1G', a: '1Gi', b: '1G', want: 1 },
    { name: '1e3 equals 1k', a: '1e3', b: '1k', want: 0 },
    { name: '512Mi is one byte less than 536870913', a: '512Mi', b: '536870913', want: -1 },
    { name: 'a negative value is less than zero', a: '-1', b: '0', want: -1 },
  ];
  it.each(cases)('$name', ({ a, b, want }) => {
    expect(compareQuantities(value(a), value(b))).toBe(want);
  });
});

describe('quantity helpers', () => {
  it('tells whole numbers from fractions', () => {
    expect([isWhole(value('2')), isWhole(value('2000m')), isWhole(value('1.5'))]).toEqual([true, true, false]);
  });

  it('turns YAML numbers into the text Kubernetes wants and trims text', () => {
    expect([quantityText(2), quantityText(0.5), quantityText(' 1Gi ')]).toEqual(['2', '0.5', '1Gi']);
  });
});
