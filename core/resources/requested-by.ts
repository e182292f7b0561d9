/**
 * The value of the `kubedag.io/requested-by` and `kubedag.io/started-by` annotations: who asked
 * and how they proved it, as `alice (basic)`. Readable in `kubectl get -o yaml` and in a printer
 * column, and still unambiguous to read back: a user name may hold anything, spaces and
 * parentheses included, but the method is one of a few words and always comes last.
 */

/** How a requester was authenticated (apiserver/caller.ts's methods). */
export const REQUEST_METHODS = ['none', 'basic', 'token', 'kubernetes', 'oidc'] as const;
export type RequestMethod = (typeof REQUEST_METHODS)[number];

export interface Requester {
  readonly user: string;
  readonly method: RequestMethod;
}

/** Annotation values may be long, but a requester is a name: keep an odd claim from growing objects. */
const MAX_USER_LENGTH = 256;

export function requestedByValue(requester: Requester): string {
  return `${requester.user.slice(0, MAX_USER_LENGTH)} (${requester.method})`;
}

const VALUE = new RegExp(`^(.*) \\((${REQUEST_METHODS.join('|')})\\)$`, 's');

/** The requester an annotation names; undefined for a missing or foreign value. */
export function parseRequestedBy(value: string | undefined): Requester | undefined {
  if (value === undefined) return undefined;
  const match = VALUE.exec(value);
  if (match === null) return undefined;
  return { user: match[1] ?? '', method: match[2] as RequestMethod };
}
