/**
 * Secret masking for logs and captured output. Longer values first, so that a secret holding
 * another one is masked whole; multi-line values are masked line by line as well, because a
 * log is often read, cut and searched one line at a time.
 */
export const MASK = '*******';

export function maskSecrets(text: string, secrets: readonly string[]): string {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret === '') continue;
    values.add(secret);
    for (const line of secret.split('\n')) if (line.trim() !== '') values.add(line);
  }
  if (values.size === 0) return text;
  let masked = text;
  for (const value of [...values].sort((a, b) => b.length - a.length)) masked = masked.split(value).join(MASK);
  return masked;
}
