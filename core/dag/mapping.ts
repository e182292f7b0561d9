/** A YAML or JSON mapping as the loaders read it: an object that is not a list. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The mapping without the given keys (a copy; the loaders never change what they read). */
export function without(
  mapping: Readonly<Record<string, unknown>>,
  ...keys: readonly string[]
): Record<string, unknown> {
  return Object.fromEntries(Object.entries(mapping).filter(([key]) => !keys.includes(key)));
}
