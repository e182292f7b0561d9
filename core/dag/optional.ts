/** `{ key: value }`, or `{}` when the value is undefined: spreads an optional field without writing `undefined`. */
export function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
