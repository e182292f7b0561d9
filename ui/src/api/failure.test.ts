import { describe, expect, it } from 'vitest';
import { ApiFailure } from './client.ts';
import { actionFailure } from './failure.ts';

describe('the words for a failed action', () => {
  it('says a 403 was a refusal, with the server reason', () => {
    expect(
      actionFailure('delete', new ApiFailure(403, 'forbidden', 'ann@example.com lacks the delete permission')),
    ).toBe('Not allowed to delete: ann@example.com lacks the delete permission');
  });

  it('says any other failure could not be done, with its message', () => {
    expect(actionFailure('save', new ApiFailure(409, 'already_exists', 'the DAG changed meanwhile'))).toBe(
      'Could not save: the DAG changed meanwhile',
    );
    expect(actionFailure('start', new TypeError('Failed to fetch'))).toBe('Could not start: Failed to fetch');
  });
});
