import { PassThrough } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { V1Status } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { exitCodeOf, forward, wrapCommand } from './container-exec.ts';

describe('exitCodeOf, the status at the end of an exec', () => {
  const cases: { name: string; status: V1Status; want: number | { error: string } }[] = [
    { name: 'is 0 for Success', status: { status: 'Success' }, want: 0 },
    { name: 'is the ExitCode cause of a NonZeroExitCode failure', status: { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '42' }] } }, want: 42 },
    { name: 'is an error with the message of any other failure', status: { status: 'Failure', reason: 'InternalError', message: 'container not running' }, want: { error: 'container not running' } },
    { name: 'is an error for a NonZeroExitCode failure without a readable code', status: { status: 'Failure', reason: 'NonZeroExitCode', message: 'odd', details: { causes: [{ reason: 'ExitCode', message: 'x' }] } }, want: { error: 'odd' } },
  ];
  it.each(cases)('$name', ({ status, want }) => {
    expect(exitCodeOf(status)).toEqual(want);
  });
});

describe('forward with a pid line', () => {
  it('takes the first line off, even split over chunks, and passes the rest on unchanged', async () => {
    const target = new PassThrough();
    const chunks: Buffer[] = [];
    target.on('data', (d: Buffer) => chunks.push(d));
    let pid = '';
    const writer = forward(target, (p) => (pid = p));
    for (const chunk of ['12', '34\nerr', 'or\n']) writer.write(Buffer.from(chunk));
    writer.end();
    await finished(writer);
    expect([pid, Buffer.concat(chunks).toString()]).toEqual(['1234', 'error\n']);
  });
});

describe('wrapCommand', () => {
  it('starts the command through sh, which reports its pid on stderr and then becomes the command', () => {
    expect(wrapCommand(['python', '-c', 'print(1)'])).toEqual(['/bin/sh', '-c', 'echo "$$" >&2 && exec "$@"', 'kubedag-exec', 'python', '-c', 'print(1)']);
  });
});
