/**
 * Query strings and path parameters are text: ajv coerces them to the schema's types, and would
 * take `1.0` or `1e2` for an integer. An integer is written as one here (digits, an optional
 * sign), so that what the document calls an integer is what the server takes.
 */
import type { ValidateFunction } from 'ajv';

const INTEGER_TEXT = /^[+-]?\d+$/;

/** The top-level properties a query or path schema types as integers. Pure. */
export function integerProperties(schema: object): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
}

/** The first parameter among `names` whose text is not an integer's, with its value; undefined when all are. Pure. */
export function nonIntegerText(data: unknown, names: readonly string[]): { name: string; value: string } | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  for (const name of names) {
    const given = (data as Record<string, unknown>)[name];
    // Repeated keys arrive as an array; each is checked, and the schema refuses more than one.
    for (const value of [given].flat())
      if (typeof value === 'string' && !INTEGER_TEXT.test(value)) return { name, value };
  }
  return undefined;
}

/** A validator that refuses non-integer text for integer parameters before ajv coerces it. */
export function withIntegerText(validate: ValidateFunction, schema: object): (data: unknown) => boolean {
  const names = integerProperties(schema);
  if (names.length === 0) return validate;
  const checked = (data: unknown): boolean => {
    const found = nonIntegerText(data, names);
    if (found === undefined) {
      const valid = validate(data);
      checked.errors = validate.errors;
      return valid;
    }
    checked.errors = [
      {
        instancePath: `/${found.name}`,
        schemaPath: '#/properties/type',
        keyword: 'type',
        params: { type: 'integer' },
        message: `must be an integer, not "${found.value}"`,
      },
    ];
    return false;
  };
  checked.errors = null as ValidateFunction['errors'];
  return checked;
}
