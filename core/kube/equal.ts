/**
 * Whether an object we are about to write says the same as the one the API server returned.
 * The server re-encodes objects with their keys in its own order, so comparing JSON text
 * would see a change in every object we built ourselves and write it again for nothing.
 * Undefined fields are dropped first, as JSON does on the wire.
 */
import { isDeepStrictEqual } from 'node:util';

export function sameContent(written: unknown, observed: unknown): boolean {
  const wire = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
  return isDeepStrictEqual(wire(written), wire(observed));
}
