/**
 * The settings of Dagu's archive executor (`archive.create`, `archive.extract`,
 * `archive.list`), read as v2.15.1 reads them (internal/runtime/builtin/archive/config.go):
 * weakly typed, unknown keys ignored, `preserve_paths` true and `compression_level` -1 by
 * default; and its path rules: how a name in an archive becomes a path under the destination
 * (strip_components, preserve_paths), include/exclude globs, and the check that no entry
 * lands outside the destination (zip-slip). Pure.
 */
import { basename, isAbsolute, matchesGlob, posix, relative, resolve } from 'node:path';
import { BUILTIN_KEYS, operationOf } from '../../core/dag/builtin-executors.ts';
import type { ExecutorSpec } from '../../core/runner/spec.ts';
import { boolSetting, intSetting, SettingError, textSetting } from '../settings.ts';
import { expandSetting } from '../io.ts';

export type ArchiveFormat = 'zip' | 'tar' | 'tar.gz' | 'tar.zst' | 'tar.bz2' | 'tar.xz' | '7z' | 'rar';

/** Formats Dagu's library reads and does not write (mholt/archives has no archiver for them). */
export const READ_ONLY_FORMATS: readonly ArchiveFormat[] = ['7z', 'rar'];

export interface ArchiveSettings {
  readonly operation: 'create' | 'extract' | 'list';
  /** As written (after `${VAR}`): what the result reports. */
  readonly source: string;
  readonly destination: string;
  readonly format: string;
  readonly compressionLevel: number;
  readonly password: string;
  readonly overwrite: boolean;
  readonly preservePaths: boolean;
  readonly stripComponents: number;
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  readonly dryRun: boolean;
  readonly followSymlinks: boolean;
  readonly verifyIntegrity: boolean;
  readonly continueOnError: boolean;
}

/** A failure with the exit code Dagu gives its kind (archive.go's exitCodeFor). */
export class ArchiveFailure extends Error {
  readonly exitCode: number;
  constructor(kind: keyof typeof ARCHIVE_EXIT, detail: string, options?: ErrorOptions) {
    super(`archive: ${KIND_TEXT[kind]}: ${detail}`, options);
    this.exitCode = ARCHIVE_EXIT[kind];
  }
}

export const ARCHIVE_EXIT = {
  config: 2,
  sourceNotFound: 3,
  destination: 4,
  format: 5,
  extract: 6,
  create: 7,
  permission: 10,
  corrupted: 12,
} as const;

const KIND_TEXT: Readonly<Record<keyof typeof ARCHIVE_EXIT, string>> = {
  config: 'configuration error',
  sourceNotFound: 'source not found',
  destination: 'destination error',
  format: 'format detection failed',
  extract: 'extraction failed',
  create: 'creation failed',
  permission: 'permission denied',
  corrupted: 'corrupted archive',
};

const OPERATIONS = ['create', 'extract', 'list'] as const;

/**
 * Formats Dagu names that Kubedag does not take: a compressed file that is not a tar (Dagu
 * compresses or decompresses one file with them, and its extract and create refuse them as
 * archives; only its list reads one).
 */
const REFUSED_FORMATS = ['gz', 'bz2', 'xz', 'zst', 'zstd', 'lz4'];

/** A format name as Dagu's formatFromString reads it (case-insensitive). */
export function formatOf(name: string): ArchiveFormat {
  const text = name.trim().toLowerCase();
  if (text === 'zip' || text === 'tar') return text;
  if (text === 'tar.gz' || text === 'tgz') return 'tar.gz';
  if (text === 'tar.zst' || text === 'tar.zstd') return 'tar.zst';
  if (text === 'tar.bz2' || text === 'tbz2' || text === 'tbz') return 'tar.bz2';
  if (text === 'tar.xz' || text === 'txz') return 'tar.xz';
  if (text === '7z' || text === 'rar') return text;
  if (REFUSED_FORMATS.includes(text))
    throw new ArchiveFailure(
      'format',
      `format "${text}" is not supported by Kubedag (it reads and writes zip, tar, tar.gz, tar.zst, tar.bz2 and tar.xz, and reads 7z and rar)`,
    );
  throw new ArchiveFailure('format', `unknown format "${text}"`);
}

/** Dagu's extensionToFormat: the format a file name's ending names, or '' when none does. */
export function formatByName(path: string): string {
  const name = basename(path).toLowerCase();
  const endings: readonly [readonly string[], string][] = [
    [['.tar.gz', '.tgz'], 'tar.gz'],
    [['.tar.bz2', '.tbz2', '.tbz'], 'tar.bz2'],
    [['.tar.xz', '.txz'], 'tar.xz'],
    [['.tar.zst', '.tar.zstd'], 'tar.zst'],
    [['.tar'], 'tar'],
    [['.zip'], 'zip'],
    [['.gz'], 'gz'],
    [['.bz2'], 'bz2'],
    [['.xz'], 'xz'],
    [['.zst', '.zstd'], 'zst'],
    [['.lz4'], 'lz4'],
  ];
  return endings.find(([suffixes]) => suffixes.some((suffix) => name.endsWith(suffix)))?.[1] ?? '';
}

const MAGIC: readonly [ArchiveFormat, readonly number[]][] = [
  ['zip', [0x50, 0x4b, 0x03, 0x04]],
  ['7z', [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]],
  ['rar', [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07]],
  ['tar.xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ['tar.bz2', [0x42, 0x5a, 0x68]],
];

/**
 * The format an archive's first bytes show, for the formats node-tar's parser does not
 * recognise itself (it does gzip and zstd); undefined for anything else. Pure.
 */
export function formatByMagic(head: Uint8Array): ArchiveFormat | undefined {
  return MAGIC.find(([, bytes]) => bytes.every((byte, i) => head[i] === byte))?.[0];
}

/** A name in an archive as a path under the destination (Dagu's sanitizeArchivePath); '' to skip. */
export function archivePath(name: string, strip: number, preserve: boolean): string {
  const clean = name.replaceAll('\\', '/').replace(/^\.\//, '');
  if (clean === '' || clean === '.') return '';
  let parts = clean.split('/');
  if (strip > 0) {
    if (strip >= parts.length) return '';
    parts = parts.slice(strip);
  }
  const joined = posix.join(...parts.filter((part) => part !== ''));
  if (joined === '.' || joined === '') return '';
  return preserve ? joined : posix.basename(joined);
}

/** Whether a path is kept: it matches an include (when there are any) and no exclude. */
export function matchesFilters(path: string, include: readonly string[], exclude: readonly string[]): boolean {
  const match = (pattern: string): boolean => pattern.trim() !== '' && matchesGlob(path, pattern.trim());
  if (include.length > 0 && !include.some(match)) return false;
  return !exclude.some(match);
}

/** Whether `target` is `base` or below it. */
export function within(base: string, target: string): boolean {
  const rel = relative(resolve(base), resolve(target));
  return rel === '' || (rel !== '..' && !rel.startsWith('../') && !isAbsolute(rel));
}

/** Where an entry goes under the destination; an entry that would land outside it is a corrupted archive. */
export function targetOf(destination: string, rel: string): string {
  const target = resolve(destination, rel);
  if (!within(destination, target)) throw new ArchiveFailure('corrupted', `target "${rel}" escapes destination`);
  return target;
}

function listSetting(config: Readonly<Record<string, unknown>>, key: string, env: Readonly<Record<string, string>>) {
  const value = config[key];
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : [value];
  return items.map((item) => {
    if (typeof item !== 'string') throw new SettingError(`${key}: must be a list of glob patterns`);
    return expandSetting(item, env);
  });
}

/**
 * Keys by Dagu 2.x's spelling: Dagu 1.24's archive executor took the same settings in camelCase
 * (`stripComponents`), matched in any letter case as mapstructure matches them.
 */
function canonicalKeys(config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const bare = (key: string): string => key.toLowerCase().replaceAll('_', '');
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      BUILTIN_KEYS.archive.find((known) => bare(known) === bare(key)) ?? key,
      value,
    ]),
  );
}

function check(settings: ArchiveSettings): void {
  const { operation } = settings;
  if (settings.source === '') throw new ArchiveFailure('config', `source is required for ${operation}`);
  if (operation === 'create' && settings.destination === '' && !settings.dryRun)
    throw new ArchiveFailure('config', `destination is required for ${operation}`);
  if (settings.stripComponents < 0) throw new ArchiveFailure('config', 'strip_components must be >= 0');
  if (settings.password !== '' && operation === 'create')
    throw new ArchiveFailure('config', 'password is only supported for extract/list operations');
  for (const pattern of [...settings.include, ...settings.exclude])
    if (/\[[^\]]*$/.test(pattern)) throw new ArchiveFailure('config', `invalid glob pattern "${pattern}"`);
}

export function archiveSettings(spec: ExecutorSpec, env: Readonly<Record<string, string>>): ArchiveSettings {
  const name = operationOf(spec.command);
  if (name === '') throw new ArchiveFailure('config', 'command must specify archive operation');
  const operation = OPERATIONS.find((op) => op === name);
  if (operation === undefined) throw new ArchiveFailure('config', `unsupported archive operation "${name}"`);
  const config = canonicalKeys(spec.config);
  try {
    const text = (key: string): string => textSetting(config, key, env) ?? '';
    const flag = (key: string): boolean => boolSetting(config, key, env);
    const settings: ArchiveSettings = {
      operation,
      source: text('source'),
      destination: text('destination'),
      format: text('format'),
      compressionLevel: config.compression_level === undefined ? -1 : intSetting(config, 'compression_level', env),
      password: text('password'),
      overwrite: flag('overwrite'),
      preservePaths: config.preserve_paths === undefined ? true : flag('preserve_paths'),
      stripComponents: intSetting(config, 'strip_components', env),
      include: listSetting(config, 'include', env),
      exclude: listSetting(config, 'exclude', env),
      dryRun: flag('dry_run'),
      followSymlinks: flag('follow_symlinks'),
      verifyIntegrity: flag('verify_integrity'),
      continueOnError: flag('continue_on_error'),
    };
    check(settings);
    return settings;
  } catch (error) {
    // Dagu's decode errors come before its checks and are not configuration errors: exit 1.
    if (error instanceof SettingError)
      throw new Error(`invalid archive configuration: ${error.message}`, { cause: error });
    throw error;
  }
}
