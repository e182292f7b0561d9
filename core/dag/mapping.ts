/** A YAML or JSON mapping as the loaders read it: an object that is not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
