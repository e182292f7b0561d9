import { describe, expect, it } from 'vitest';
import {
  ARTIFACT_LIMITS,
  manifestAt,
  maskArtifacts,
  mergeArtifacts,
  parseArtifactLines,
  parseManifest,
  safeArtifactPath,
} from './artifacts.ts';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('the artifact lines of a runner', () => {
  it('decode into files, od hex over several lines', () => {
    expect(parseArtifactLines('S 7\nF 3 a.txt\n 61 62\n 63\nF 0 empty\n')).toEqual({
      files: [
        { path: 'a.txt', size: 3, data: b64('abc') },
        { path: 'empty', size: 0, data: '' },
      ],
      sequence: 7,
    });
  });

  it.each([
    { name: 'a path that climbs out', text: 'F 1 ../x\n 61\n', want: 'artifact path "../x" is not a relative path' },
    { name: 'an absolute path', text: 'F 1 /etc/x\n 61\n', want: 'is not a relative path' },
    { name: 'a file cut short', text: 'F 3 a\n 61\n', want: 'artifact "a" arrived incomplete (1 of 3 bytes)' },
    { name: 'more bytes than the limit', text: `F ${String(ARTIFACT_LIMITS.bytes + 1)} a\n`, want: 'at most' },
  ])('keep nothing for $name', ({ text, want }) => {
    const parsed = parseArtifactLines(text);
    expect('error' in parsed ? parsed.error : '').toContain(want);
  });

  it('tell safe paths from others', () => {
    expect(['a', 'a/b.txt', 'x y/z'].map(safeArtifactPath)).toEqual([true, true, true]);
    expect(['', '/a', 'a//b', './a', 'a/../b', 'a/'].map(safeArtifactPath)).toEqual(Array(6).fill(false));
  });
});

describe("a run's files from its attempts", () => {
  it("keep the later attempt's file of a path, whatever order the store lists them in", () => {
    const later = { at: '2026-11-29T10:00:02.000Z b.0', files: [{ path: 'r.txt', size: 1, data: b64('2') }] };
    const earlier = {
      at: '2026-11-29T10:00:01.000Z a.0',
      files: [
        { path: 'r.txt', size: 1, data: b64('1') },
        { path: 'z', size: 1, data: b64('z') },
      ],
    };
    expect(mergeArtifacts([later, earlier])).toEqual([
      { path: 'r.txt', size: 1, data: b64('2') },
      { path: 'z', size: 1, data: b64('z') },
    ]);
  });

  it('drop a file that a later attempt replaced by a directory', () => {
    const first = { at: '1', files: [{ path: 'out', size: 1, data: b64('f') }] };
    const second = { at: '2', files: [{ path: 'out/x', size: 1, data: b64('x') }] };
    expect(mergeArtifacts([first, second]).map((f) => f.path)).toEqual(['out/x']);
  });

  it('order attempts by the run sequence before the time their steps ended', () => {
    const second = {
      at: manifestAt(2, '2026-11-29T10:00:01.000Z', 'a.0'),
      files: [{ path: 'f', size: 1, data: b64('2') }],
    };
    const first = {
      at: manifestAt(1, '2026-11-29T10:00:01.000Z', 'b.0'),
      files: [{ path: 'f', size: 1, data: b64('1') }],
    };
    const tenth = {
      at: manifestAt(10, '2026-11-29T10:00:00.000Z', 'c.0'),
      files: [{ path: 'f', size: 1, data: b64('x') }],
    };
    expect(mergeArtifacts([second, first]).map((f) => f.data)).toEqual([b64('2')]);
    expect(mergeArtifacts([tenth, second]).map((f) => f.data)).toEqual([b64('x')]);
  });

  it('read kept manifests and ignore what is not one', () => {
    expect(parseManifest('{"at":"1","files":[]}')).toEqual({ at: '1', files: [] });
    expect(parseManifest('not json')).toBeUndefined();
    expect(parseManifest('{"files":[]}')).toBeUndefined();
  });
});

describe('maskArtifacts', () => {
  const file = (path: string, bytes: Buffer) => ({ path, size: bytes.length, data: bytes.toString('base64') });
  const text = (kept: { data: string }): string => Buffer.from(kept.data, 'base64').toString('utf8');

  it.each([
    ['a text file', 'token=s3cret\n', ['s3cret'], 'token=*******\n'],
    ['each line of a multi-line secret', 'a\nline-one\nb\n', ['line-one\nline-two'], 'a\n*******\nb\n'],
    ['the longer secret first', 'abcdef', ['abc', 'abcdef'], '*******'],
    ['no secret', 'plain\n', ['other'], 'plain\n'],
    ['UTF-8 text', 'ключ=s3cret', ['s3cret'], 'ключ=*******'],
  ])('masks %s as a log is masked, its size following', (_name, content, secrets, want) => {
    const { files, dropped } = maskArtifacts([file('a.txt', Buffer.from(content))], secrets);
    expect(dropped).toEqual([]);
    expect(files.map(text)).toEqual([want]);
    expect(files[0]?.size).toBe(Buffer.byteLength(want));
  });

  it('drops a binary file that holds a secret, and keeps one that holds none as it is', () => {
    const holding = file(
      'bin/a.bin',
      Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from('s3cret'), Buffer.from([0xff])]),
    );
    const clean = file('bin/b.bin', Buffer.from([0, 0xff, 0xfe, 7]));
    const { files, dropped } = maskArtifacts([holding, clean], ['s3cret']);
    expect(dropped).toEqual(['bin/a.bin']);
    expect(files).toEqual([clean]);
  });

  it('keeps every file as it is when the run has no secrets', () => {
    const files = [file('a.txt', Buffer.from('x')), file('b.bin', Buffer.from([0, 1]))];
    expect(maskArtifacts(files, [])).toEqual({ files, dropped: [] });
  });
});
