/**
 * The start dialog's parameters: a field per parameter of the DAG, filled with its default,
 * and the params string the contract takes back (a JSON object; keys "1", "2", ... are
 * positional, core/dag/params.ts).
 *
 * Only the fields the user changed are sent. A default can be `` `date +%F` `` or `${HOME}`,
 * which the run evaluates; sent back as an override it would be the same text, but a
 * positional default replaced by itself is still a replacement, and sending nothing keeps the
 * DAG's own behaviour exactly.
 */

export interface ParamField {
  /** The parameter's name; positional ones are "1", "2", ... */
  readonly name: string;
  readonly value: string;
  readonly positional: boolean;
}

const POSITIONAL = /^[1-9]\d*$/;
// encodeParams writes `{"name":"value",...}` with JSON strings on both sides, in order; a
// JavaScript object would move integer-like keys ("1", "2") first, so the text is read in order.
const ENTRY = /"((?:[^"\\]|\\.)*)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;

function entries(defaultParams: string): [string, string][] {
  return [...defaultParams.matchAll(ENTRY)].flatMap((match): [string, string][] => {
    try {
      return [[JSON.parse(`"${match[1] ?? ''}"`) as string, JSON.parse(`"${match[2] ?? ''}"`) as string]];
    } catch {
      return [];
    }
  });
}

/**
 * The fields of a DAG's parameters: `names` (the DAG summary's `params`) in order, each with
 * its value from `defaultParams` (the summary's JSON object of defaults). A name listed twice
 * (`A=1 A=2`) is one field, with the value the run would use: the last.
 */
export function paramFields(names: readonly string[], defaultParams: string): ParamField[] {
  const defaults = new Map(entries(defaultParams));
  const order = names.length > 0 ? names : [...defaults.keys()];
  return [...new Set(order)].map((name) => ({
    name,
    value: defaults.get(name) ?? '',
    positional: POSITIONAL.test(name),
  }));
}

/**
 * The params string for start and enqueue: the fields that differ from `defaults` (all of
 * them without defaults), as a JSON object in the form's order; undefined when none differ.
 */
export function paramsString(fields: readonly ParamField[], defaults: readonly ParamField[] = []): string | undefined {
  const before = new Map(defaults.map((field) => [field.name, field.value]));
  const changed = fields.filter((field) => before.get(field.name) !== field.value);
  if (changed.length === 0) return undefined;
  return `{${changed.map((field) => `${JSON.stringify(field.name)}:${JSON.stringify(field.value)}`).join(',')}}`;
}

/** A field's label: its name, or its position for positional ones. */
export function fieldLabel(field: ParamField): string {
  return field.positional ? `Argument ${field.name}` : field.name;
}
