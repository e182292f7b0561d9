/**
 * For the API server's unit tests: the app with its real routes and no cluster (every route that
 * needs one answers 503), authentication as a test asks, every route collected as fastify
 * registers it, and a web UI laid out on disk as Vite builds it.
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../apiserver/app.ts';
import type { AuditLog } from '../apiserver/audit.ts';
import { registerAuth, type AuthOptions } from '../apiserver/auth.ts';

export interface TestAppOptions {
  /** Authentication on with these credentials; off when absent. */
  readonly auth?: AuthOptions;
  /** Filled with every route as it is registered. */
  readonly routes?: RouteOptions[];
  readonly uiDir?: string;
  readonly clock?: () => Date;
  readonly bodyLimit?: number;
  /** Registered after authentication, as main.ts registers remote nodes. */
  readonly plugins?: readonly ((app: FastifyInstance) => void)[];
  readonly audit?: AuditLog;
}

export function testApp(options: TestAppOptions = {}): ReturnType<typeof buildApp> {
  const { auth, routes } = options;
  return buildApp({
    version: 't',
    clock: options.clock ?? (() => new Date(0)),
    health: () => Promise.resolve(undefined),
    ...(options.uiDir === undefined ? {} : { uiDir: options.uiDir }),
    ...(options.bodyLimit === undefined ? {} : { bodyLimit: options.bodyLimit }),
    ...(options.audit === undefined ? {} : { audit: options.audit }),
    plugins: [
      (a) => {
        a.addHook('onRoute', (route) => {
          routes?.push(route);
        });
        if (auth !== undefined) registerAuth(a, auth);
      },
      ...(options.plugins ?? []),
    ],
  });
}

/** A built UI as Vite lays it out: index.html and a content-hashed asset. */
export function builtUi(index = '<!doctype html><div id="root"></div>'): string {
  const root = mkdtempSync(join(tmpdir(), 'kubedag-ui-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), index);
  writeFileSync(join(root, 'assets', 'index-Ab12.js'), 'console.log(1)');
  return root;
}
