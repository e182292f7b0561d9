import { describe, expect, it } from 'vitest';
import { describeS3Error } from './s3-store.ts';

/** An error as the SDK throws it: a name, a message and the answer's status in `$metadata`. */
const s3Error = (name: string, message: string, status?: number): Error =>
  Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

describe('S3 errors in words', () => {
  it.each([
    {
      name: 'an error with a message reads as its name and message',
      error: s3Error('NoSuchBucket', 'The specified bucket does not exist', 404),
      want: 'NoSuchBucket: The specified bucket does not exist',
    },
    {
      name: 'a HEAD refused without a body reads as what 403 means',
      error: s3Error('Forbidden', 'UnknownError', 403),
      want: 'Forbidden: access denied (check the credentials and the bucket policy)',
    },
    {
      name: 'an error the SDK calls Unknown drops that name',
      error: s3Error('Unknown', 'UnknownError', 403),
      want: 'access denied (check the credentials and the bucket policy)',
    },
    {
      name: 'a redirect says the bucket is in another region',
      error: s3Error('PermanentRedirect', '', 301),
      want: 'PermanentRedirect: the bucket is in another region (set log-s3-region)',
    },
    {
      name: 'another status without a message reads as that status',
      error: s3Error('Unknown', 'UnknownError', 503),
      want: 'HTTP 503',
    },
    {
      name: 'a network error reads as its message',
      error: new Error('connect ECONNREFUSED 127.0.0.1:1'),
      want: 'connect ECONNREFUSED 127.0.0.1:1',
    },
    { name: 'something that is no error reads as its text', error: 'socket hang up', want: 'socket hang up' },
  ])('$name', ({ error, want }) => {
    expect(describeS3Error(error)).toBe(want);
  });
});
