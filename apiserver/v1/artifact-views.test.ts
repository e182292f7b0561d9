import { describe, expect, it } from 'vitest';
import { artifactPreview, artifactTree } from './artifact-views.ts';

const files = [
  { path: 'report.md', size: 4 },
  { path: 'B.txt', size: 1 },
  { path: 'out/deep/x.bin', size: 9 },
  { path: 'out/a.csv', size: 3 },
];

describe("a run's artifact tree", () => {
  it('lists the top level, directories first and names case-blind, without their children', () => {
    expect(artifactTree(files, false)).toEqual([
      { name: 'out', path: 'out', type: 'directory' },
      { name: 'B.txt', path: 'B.txt', type: 'file', size: 1 },
      { name: 'report.md', path: 'report.md', type: 'file', size: 4 },
    ]);
  });

  it('nests every level when recursive', () => {
    expect(artifactTree(files, true)[0]).toEqual({
      name: 'out',
      path: 'out',
      type: 'directory',
      children: [
        {
          name: 'deep',
          path: 'out/deep',
          type: 'directory',
          children: [{ name: 'x.bin', path: 'out/deep/x.bin', type: 'file', size: 9 }],
        },
        { name: 'a.csv', path: 'out/a.csv', type: 'file', size: 3 },
      ],
    });
  });

  it('is empty for a run without files', () => {
    expect(artifactTree([], true)).toEqual([]);
  });
});

describe("an artifact's preview", () => {
  it.each([
    {
      path: 'r.md',
      bytes: Buffer.from('# hi'),
      want: { kind: 'markdown', mimeType: 'text/markdown', content: '# hi' },
    },
    { path: 'p.html', bytes: Buffer.from('<b>'), want: { kind: 'html', mimeType: 'text/html', content: '<b>' } },
    { path: 'd.json', bytes: Buffer.from('{}'), want: { kind: 'text', mimeType: 'application/json', content: '{}' } },
    { path: 'notes', bytes: Buffer.from('plain'), want: { kind: 'text', content: 'plain' } },
    { path: 'i.png', bytes: Buffer.from([137, 80]), want: { kind: 'image', mimeType: 'image/png' } },
    { path: 'blob', bytes: Buffer.from([0, 1, 2]), want: { kind: 'binary', mimeType: 'application/octet-stream' } },
  ])('of $path is $want.kind', ({ path, bytes, want }) => {
    const preview = artifactPreview(path, bytes);
    expect(preview).toMatchObject({ ...want, path, size: bytes.length, tooLarge: false, truncated: false });
    if (!('content' in want)) expect(preview.content).toBeUndefined();
  });

  it('carries no text past 2 MiB and says so', () => {
    const preview = artifactPreview('big.txt', Buffer.alloc(2 * 1024 * 1024 + 1, 'a'));
    expect(preview).toMatchObject({ kind: 'text', tooLarge: true });
    expect(preview.content).toBeUndefined();
  });
});
