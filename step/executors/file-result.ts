/**
 * What Dagu's file executor writes on stdout, as v2.15.1 writes it (internal/runtime/builtin/file):
 * one line of JSON per operation, fields in its struct's order and empty ones left out (Go's
 * `omitempty`), a file's mode as Go's FileMode.String() (`-rw-r--r--`, `drwxr-x---`,
 * `Lrwxrwxrwx`) and times as RFC 3339 with nanoseconds, trailing zeros cut. Pure.
 */
import type { BigIntStats } from 'node:fs';

export type FileType = 'file' | 'directory' | 'symlink' | 'other';

export interface PathInfo {
  readonly path: string;
  readonly type: FileType;
  readonly size: number;
  readonly mode: string;
  readonly modTime: string;
  readonly isDir: boolean;
  readonly isRegular: boolean;
  readonly isSymlink: boolean;
}

/** opResult's fields, in Go's order; a field left undefined (or Go's zero, for omitempty) is not written. */
export interface FileResult {
  readonly operation: string;
  readonly path?: string;
  readonly source?: string;
  readonly destination?: string;
  readonly exists?: boolean;
  readonly type?: FileType;
  readonly size?: number;
  readonly mode?: string;
  readonly modTime?: string;
  readonly files?: number;
  readonly directories?: number;
  readonly bytes?: number;
  readonly dryRun?: boolean;
  readonly deleted?: boolean;
  readonly created?: boolean;
  readonly moved?: boolean;
  readonly copied?: boolean;
  readonly content?: string;
  readonly entries?: readonly PathInfo[];
}

const ORDER: readonly (keyof FileResult)[] = [
  'operation',
  'path',
  'source',
  'destination',
  'exists',
  'type',
  'size',
  'mode',
  'modTime',
  'files',
  'directories',
  'bytes',
  'dryRun',
  'deleted',
  'created',
  'moved',
  'copied',
  'content',
  'entries',
];

/** Pointer fields (exists, deleted, created, moved, copied) are written when set, false too; the rest only when not zero. */
const POINTERS = new Set<keyof FileResult>(['exists', 'deleted', 'created', 'moved', 'copied']);

function isZero(value: unknown): boolean {
  return value === '' || value === 0 || value === false || (Array.isArray(value) && value.length === 0);
}

export function resultLine(result: FileResult): string {
  const fields = ORDER.flatMap((key) => {
    const value = result[key];
    if (value === undefined || (!POINTERS.has(key) && isZero(value))) return [];
    return [[key, value] as const];
  });
  return `${JSON.stringify(Object.fromEntries(fields))}\n`;
}

const S_IFMT = 0o170000;
const KIND: Readonly<Record<number, { letter: string; type: FileType }>> = {
  0o100000: { letter: '-', type: 'file' },
  0o040000: { letter: 'd', type: 'directory' },
  0o120000: { letter: 'L', type: 'symlink' },
  0o010000: { letter: 'p', type: 'other' },
  0o140000: { letter: 'S', type: 'other' },
  0o020000: { letter: 'c', type: 'other' },
  0o060000: { letter: 'D', type: 'other' },
};

export function fileType(mode: number): FileType {
  return KIND[mode & S_IFMT]?.type ?? 'other';
}

/** Go's FileMode.String() of a stat mode: the type letter (Go writes `Dc` for a character device), then rwx bits. */
export function goFileMode(mode: number): string {
  const kind = mode & S_IFMT;
  const letter = kind === 0o020000 ? 'Dc' : (KIND[kind]?.letter ?? '?');
  const special = (mode & 0o4000 ? 'u' : '') + (mode & 0o2000 ? 'g' : '') + (mode & 0o1000 ? 't' : '');
  const bits = 'rwxrwxrwx'
    .split('')
    .map((char, i) => (mode & (1 << (8 - i)) ? char : '-'))
    .join('');
  return `${letter === '-' ? special || '-' : letter + special}${bits}`;
}

/** Go's RFC3339Nano of a modification time in UTC: nanoseconds with trailing zeros cut. */
export function goTime(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const base = new Date(ms).toISOString().slice(0, 19);
  const fraction = (((ns % 1_000_000_000n) + 1_000_000_000n) % 1_000_000_000n).toString().padStart(9, '0');
  const cut = fraction.replace(/0+$/, '');
  return `${base}${cut === '' ? '' : `.${cut}`}Z`;
}

export function pathInfo(path: string, stats: BigIntStats): PathInfo {
  const mode = Number(stats.mode);
  const type = fileType(mode);
  return {
    path,
    type,
    size: Number(stats.size),
    mode: goFileMode(mode),
    modTime: goTime(stats.mtimeNs),
    isDir: type === 'directory',
    isRegular: type === 'file',
    isSymlink: type === 'symlink',
  };
}

/** The stat part of a result (stat, read): type, size, mode and time. */
export function infoResult(operation: string, path: string, stats: BigIntStats): FileResult {
  const info = pathInfo(path, stats);
  return { operation, path, type: info.type, size: info.size, mode: info.mode, modTime: info.modTime };
}

/** Go's wording of the usual errors, so that messages read as Dagu's. */
export function goError(error: unknown): string {
  const messages: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EEXIST: 'file exists',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
    ENOTEMPTY: 'directory not empty',
  };
  return messages[(error as NodeJS.ErrnoException).code ?? ''] ?? (error as Error).message;
}
