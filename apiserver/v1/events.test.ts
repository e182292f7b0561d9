import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { readThrough } from './events.ts';

describe("the event stream's reads through the app's own routes", () => {
  it('reads a route that answers 200 and finds nothing in any other answer', async () => {
    const app = Fastify();
    app.get('/ok', () => ({ hello: 'world' }));
    await app.ready();
    const read = readThrough(app);
    expect(await read('/ok', {})).toEqual({ hello: 'world' });
    expect(await read('/missing', {})).toBeUndefined();
    await app.close();
  });

  it('finds nothing, and does not reject, once the app is closing', async () => {
    const app = Fastify();
    app.get('/ok', () => ({ hello: 'world' }));
    await app.ready();
    const read = readThrough(app);
    await app.close();
    // fastify refuses every inject from the start of close(): a timer's refresh that reads
    // then must not become an unhandled rejection, which would end the API server.
    await expect(read('/ok', {})).resolves.toBeUndefined();
  });
});
