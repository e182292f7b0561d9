import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorLogs } from './operator-logs.ts';

/** A stand-in for the operator's log endpoint on loopback: each step name picks an answer. */
const answers: Record<string, { status: number; type: string; body: string }> = {
  archived: {
    status: 200,
    type: 'application/json',
    body: JSON.stringify({ content: 'hello', lineCount: 1, totalLines: 1, hasMore: false, isEstimate: false }),
  },
  missing: {
    status: 404,
    type: 'application/json',
    body: JSON.stringify({ code: 'not_found', message: 'no log for this step attempt' }),
  },
  broken: {
    status: 500,
    type: 'text/plain',
    body: 'S3 log store: reading s3://logs/ns/etl/r1/load.0.stdout failed: access denied (check the credentials and the bucket policy)',
  },
  silent: { status: 502, type: 'text/plain', body: '' },
};
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    const step = decodeURIComponent(request.url?.split('?')[0]?.split('/')[5] ?? '');
    const answer = answers[step] ?? { status: 500, type: 'text/plain', body: 'unexpected' };
    response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  url = `http://127.0.0.1:${String(typeof address === 'object' && address !== null ? address.port : 0)}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const read = (step: string) =>
  new OperatorLogs(url, 'ns').read({ dagName: 'etl', dagRunId: 'r1', step, attempt: 0, stream: 'stdout' }, {});

describe("the client of the operator's log endpoint", () => {
  it('returns the chunk the operator answered', async () => {
    expect((await read('archived'))?.content).toBe('hello');
  });

  it('returns nothing when the operator has no log for the attempt', async () => {
    expect(await read('missing')).toBeUndefined();
  });

  it.each([
    {
      name: 'passes on what the operator said went wrong, such as its log store’s error',
      step: 'broken',
      message:
        "the operator's log endpoint answered 500: S3 log store: reading s3://logs/ns/etl/r1/load.0.stdout failed: access denied (check the credentials and the bucket policy)",
    },
    {
      name: 'gives the status alone when the operator said nothing',
      step: 'silent',
      message: "the operator's log endpoint answered 502",
    },
  ])('$name', async ({ step, message }) => {
    await expect(read(step)).rejects.toThrow(message);
    await expect(read(step)).rejects.not.toThrow(`${message}:`);
  });
});
