/**
 * Host key checks against an OpenSSH known_hosts file (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT"),
 * as Dagu's strictHostKey does with Go's knownhosts package: plain, wildcard, negated and
 * hashed host patterns, `[host]:port` for ports other than 22, and `@revoked` keys. A host
 * that is not listed is refused as well as one whose key differs. `@cert-authority` lines
 * are not used: ssh2 does not verify host certificates.
 */
import { createHmac } from 'node:crypto';

export type HostKeyVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

interface Entry {
  readonly marker?: string;
  readonly patterns: string;
  readonly key: Buffer;
}

/** The verdict on the key a server presented for host:port, given the known_hosts text. */
export function checkHostKey(knownHosts: string, host: string, port: number, presented: Buffer): HostKeyVerdict {
  const name = port === 22 ? host : `[${host}]:${port}`;
  const entries = parse(knownHosts).filter((entry) => matchesHost(entry.patterns, name));
  if (entries.some((entry) => entry.marker === '@revoked' && entry.key.equals(presented)))
    return { ok: false, reason: `the host key of ${name} is marked @revoked` };
  const keys = entries.filter((entry) => entry.marker === undefined);
  if (keys.some((entry) => entry.key.equals(presented))) return { ok: true };
  if (keys.length > 0)
    return {
      ok: false,
      reason: `the host key of ${name} differs from the one in known_hosts (possible man-in-the-middle; update the file if the host was re-keyed)`,
    };
  return { ok: false, reason: `${name} is not in known_hosts; add its key (ssh-keyscan) or set strictHostKey: false` };
}

function parse(text: string): Entry[] {
  const entries: Entry[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const marker = fields[0]?.startsWith('@') === true ? fields.shift() : undefined;
    const [patterns, , blob] = fields;
    if (patterns === undefined || blob === undefined) continue;
    entries.push({ ...(marker === undefined ? {} : { marker }), patterns, key: Buffer.from(blob, 'base64') });
  }
  return entries;
}

/** A comma-separated pattern list matches when one pattern does and no negated one does. */
function matchesHost(patterns: string, name: string): boolean {
  if (patterns.startsWith('|1|')) return matchesHashed(patterns, name);
  let matched = false;
  for (const pattern of patterns.split(',')) {
    const negated = pattern.startsWith('!');
    if (!wildcard(negated ? pattern.slice(1) : pattern).test(name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

/** `|1|salt|hash`: HMAC-SHA1 of the name keyed with the salt (ssh-keygen -H). */
function matchesHashed(entry: string, name: string): boolean {
  const [, , salt, hash] = entry.split('|');
  if (salt === undefined || hash === undefined) return false;
  return createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest('base64') === hash;
}

function wildcard(pattern: string): RegExp {
  const source = pattern
    .toLowerCase()
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replaceAll('*', '.*')
    .replaceAll('?', '.');
  return new RegExp(`^${source}$`, 'i');
}
