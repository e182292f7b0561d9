/**
 * One entry of an archive as every format's reader hands it over (tar, zip, and 7-Zip's
 * formats): a module of its own so that the readers and the format switch import it without
 * importing each other.
 */
import type { Readable } from 'node:stream';

export interface ArchiveEntry {
  readonly name: string;
  readonly kind: 'file' | 'dir' | 'symlink' | 'other';
  readonly size: number;
  /** Permission bits. */
  readonly mode: number;
  readonly mtime: Date;
  readonly linkTarget?: string;
  /** The content; must be read to its end (or `skip` called) before the next entry comes. */
  readonly content: () => Promise<Readable>;
  readonly skip: () => void;
}

export type EntryHandler = (entry: ArchiveEntry) => Promise<void>;
