/** Exit codes: 0 all valid, 1 some input is invalid, 2 usage or read errors. */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

export function readError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'cannot read: no such file';
  if (code === 'EISDIR') return 'cannot read: is a directory';
  if (code === 'EACCES') return 'cannot read: permission denied';
  return `cannot read: ${(error as Error).message}`;
}
