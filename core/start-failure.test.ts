import { describe, expect, it } from 'vitest';
import { startFailure } from './start-failure.ts';

const errno = (code: string, message: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code });
const http = { port: 8081, setting: '--http-port or KUBEDAG_HTTP_PORT' };

describe('why a program could not start', () => {
  const cases: { name: string; error: unknown; want: string }[] = [
    {
      name: 'a taken port names the port and the setting that moves it',
      error: errno('EADDRINUSE', 'listen EADDRINUSE: address already in use :::8081'),
      want: 'cannot listen on port 8081: it is already in use (by another program or another Kubedag); choose another with --http-port or KUBEDAG_HTTP_PORT',
    },
    {
      name: 'a forbidden port says that low ports need privileges',
      error: errno('EACCES', 'listen EACCES: permission denied 0.0.0.0:80'),
      want: 'cannot listen on port 8081: permission denied (ports below 1024 need privileges); choose another with --http-port or KUBEDAG_HTTP_PORT',
    },
    {
      name: 'any other error is its own message',
      error: new Error('connect ECONNREFUSED 127.0.0.1:6443'),
      want: 'connect ECONNREFUSED 127.0.0.1:6443',
    },
    { name: 'something thrown that is not an error is shown as text', error: 'boom', want: 'boom' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(startFailure(c.error, http)).toBe(c.want);
    });
  }
});
