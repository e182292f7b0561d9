/**
 * What the UI says when an action fails. A 403 is a refusal, not a fault: the caller is known
 * but lacks the permission (docs/api-auth.md), so it reads "Not allowed to …" and then the
 * server's reason, which names the user and the permission missing.
 */
import { ApiFailure } from './client.ts';

/** `verb` is what was tried, as in "Could not <verb>": "delete", "save", "start". */
export function actionFailure(verb: string, error: Error): string {
  if (error instanceof ApiFailure && error.status === 403) return `Not allowed to ${verb}: ${error.message}`;
  return `Could not ${verb}: ${error.message}`;
}
