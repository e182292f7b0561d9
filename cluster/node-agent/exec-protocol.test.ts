import { describe, expect, it } from 'vitest';
import { negotiate, parseExecRequest, readFrame, statusMessage, type ChannelProtocol } from './exec-protocol.ts';

const url = (path: string): URL => new URL(path, 'https://node');

describe('parseExecRequest, the kubelet exec URL', () => {
  const cases: { name: string; path: string; want: unknown }[] = [
    {
      name: 'reads namespace, pod, container, the command words in order and the streams turned on',
      path: '/exec/ns/web/main?command=sh&command=-c&command=echo+hi&input=1&output=1&error=1',
      want: {
        ok: true,
        value: {
          namespace: 'ns',
          pod: 'web',
          container: 'main',
          command: ['sh', '-c', 'echo hi'],
          stdin: true,
          stdout: true,
          stderr: true,
          tty: false,
        },
      },
    },
    {
      name: 'reads the pod uid of the five-part form',
      path: '/exec/ns/web/uid-1/main?command=true&output=1',
      want: {
        ok: true,
        value: {
          namespace: 'ns',
          pod: 'web',
          uid: 'uid-1',
          container: 'main',
          command: ['true'],
          stdin: false,
          stdout: true,
          stderr: false,
          tty: false,
        },
      },
    },
    { name: 'is not an exec request for another path', path: '/containerLogs/ns/web/main', want: undefined },
    { name: 'is not an exec request with a part missing', path: '/exec/ns/web?command=true&output=1', want: undefined },
    {
      name: 'refuses a request without any stream',
      path: '/exec/ns/web/main?command=true',
      want: { ok: false, status: 400, message: 'you must specify at least 1 of stdin, stdout, stderr' },
    },
    {
      name: 'refuses a request without a command',
      path: '/exec/ns/web/main?output=1',
      want: { ok: false, status: 400, message: 'you must specify a command' },
    },
    {
      name: 'refuses a terminal with a message that says what to do',
      path: '/exec/ns/web/main?command=sh&input=1&output=1&tty=1',
      want: { ok: false, status: 400, message: expect.stringContaining('without -t') as unknown },
    },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(parseExecRequest(url(path))).toEqual(want);
  });
});

describe('negotiate, the channel protocol', () => {
  const cases: { name: string; offered: string[]; want: ChannelProtocol | undefined }[] = [
    {
      name: 'takes v5 when offered, whatever the order',
      offered: ['v4.channel.k8s.io', 'v5.channel.k8s.io'],
      want: 'v5.channel.k8s.io',
    },
    {
      name: 'takes v4 when v5 is not offered',
      offered: ['v4.channel.k8s.io', 'v3.channel.k8s.io'],
      want: 'v4.channel.k8s.io',
    },
    { name: 'takes the oldest protocol when none is named', offered: [], want: 'channel.k8s.io' },
    { name: 'takes none of the base64 protocols', offered: ['v4.base64.channel.k8s.io'], want: undefined },
  ];
  it.each(cases)('$name', ({ offered, want }) => {
    expect(negotiate(offered)).toBe(want);
  });
});

describe('readFrame, what the client sends', () => {
  const cases: { name: string; message: number[]; protocol: ChannelProtocol; want: unknown }[] = [
    {
      name: 'reads data for stdin',
      message: [0, 104, 105],
      protocol: 'v4.channel.k8s.io',
      want: { kind: 'data', channel: 0, data: Buffer.from('hi') },
    },
    {
      name: 'reads the close signal of v5 as the end of that channel',
      message: [255, 0],
      protocol: 'v5.channel.k8s.io',
      want: { kind: 'close', channel: 0 },
    },
    {
      name: 'calls a close signal without its channel invalid',
      message: [255],
      protocol: 'v5.channel.k8s.io',
      want: { kind: 'invalid', reason: 'one channel byte must follow the stream close signal' },
    },
    {
      name: 'knows no close signal before v5',
      message: [255, 0],
      protocol: 'v4.channel.k8s.io',
      want: { kind: 'data', channel: 255, data: Buffer.from([0]) },
    },
    { name: 'ignores an empty message', message: [], protocol: 'v5.channel.k8s.io', want: undefined },
  ];
  it.each(cases)('$name', ({ message, protocol, want }) => {
    expect(readFrame(Buffer.from(message), protocol)).toEqual(want);
  });
});

describe('statusMessage, the end of the error channel', () => {
  const cases: {
    name: string;
    outcome: Parameters<typeof statusMessage>[0];
    protocol: ChannelProtocol;
    want: unknown;
  }[] = [
    {
      name: 'is a Success status for exit 0',
      outcome: { kind: 'exited', exitCode: 0 },
      protocol: 'v5.channel.k8s.io',
      want: { metadata: {}, status: 'Success' },
    },
    {
      name: 'carries a non-zero exit code as the ExitCode cause of a NonZeroExitCode failure',
      outcome: { kind: 'exited', exitCode: 3 },
      protocol: 'v4.channel.k8s.io',
      want: {
        metadata: {},
        status: 'Failure',
        reason: 'NonZeroExitCode',
        message: 'command terminated with non-zero exit code: exit status 3',
        details: { causes: [{ reason: 'ExitCode', message: '3' }] },
      },
    },
    {
      name: 'is an InternalError failure when the command could not start',
      outcome: { kind: 'error', message: 'boom' },
      protocol: 'v5.channel.k8s.io',
      want: { metadata: {}, status: 'Failure', reason: 'InternalError', code: 500, message: 'boom' },
    },
  ];
  it.each(cases)('$name', ({ outcome, protocol, want }) => {
    expect(JSON.parse(statusMessage(outcome, protocol) ?? 'null')).toEqual(want);
  });

  it('writes nothing on success and the message alone on failure in the oldest protocol', () => {
    expect([
      statusMessage({ kind: 'exited', exitCode: 0 }, 'channel.k8s.io'),
      statusMessage({ kind: 'exited', exitCode: 2 }, 'channel.k8s.io'),
    ]).toEqual([undefined, 'command terminated with non-zero exit code: exit status 2']);
  });
});
