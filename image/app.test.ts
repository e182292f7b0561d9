import { describe, expect, it } from 'vitest';
import { commandEntries, moduleIncluded, sourceIncluded } from './app.ts';

describe('moduleIncluded', () => {
  const cases = [
    { name: 'takes a package’s code', path: 'node_modules/fastify/fastify.js', want: true },
    { name: 'takes a package’s licence and manifest', path: 'node_modules/fastify/LICENSE', want: true },
    { name: 'leaves out type declarations', path: 'node_modules/fastify/types/index.d.ts', want: false },
    { name: 'leaves out module type declarations', path: 'node_modules/x/index.d.mts', want: false },
    { name: 'leaves out source maps', path: 'node_modules/@kubernetes/client-node/dist/api.js.map', want: false },
    { name: "leaves out npm's hidden lockfile", path: 'node_modules/.package-lock.json', want: false },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(moduleIncluded(path)).toBe(want);
  });
});

describe('sourceIncluded', () => {
  const cases = [
    { name: 'takes sources', path: 'apiserver/server.ts', want: true },
    { name: 'leaves out tests', path: 'apiserver/server.test.ts', want: false },
    { name: 'leaves out snapshot folders', path: 'core/dag/__snapshots__', want: false },
  ];
  it.each(cases)('$name', ({ path, want }) => {
    expect(sourceIncluded(path)).toBe(want);
  });
});

describe('commandEntries', () => {
  it('puts kubedag and kubedag-step on the PATH as executable shell wrappers around node', () => {
    expect(commandEntries().map((e) => [e.path, e.mode, 'content' in e ? e.content.toString() : ''])).toEqual([
      ['usr/local/bin/kubedag', 0o755, '#!/bin/sh\nexec node /app/cli/main.ts "$@"\n'],
      ['usr/local/bin/kubedag-step', 0o755, '#!/bin/sh\nexec node /app/dist/kubedag-step.mjs "$@"\n'],
    ]);
  });
});
