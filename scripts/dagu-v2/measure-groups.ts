/** Grouping of the corpus measure's findings: pure functions, tested in measure-groups.test.ts. */

/**
 * A Kubedag error on a file Dagu accepts: a 2.x feature refused by name (every refusal carries
 * its reason, dialect-refusal.ts), or another check.
 */
export type RefusalKind = 'deliberate' | 'other';

export function refusalKind(message: string): RefusalKind {
  if (/^Dagu 2\.x feature .* is not supported: /.test(message)) return 'deliberate';
  return 'other';
}

export interface Group {
  readonly key: string;
  /** Files with this key at least once. */
  readonly files: number;
  /** The first few of them. */
  readonly samples: readonly string[];
}

/**
 * Files grouped by each key they have (a file counts once per distinct key), the biggest group
 * first, ties by key. Keys are made generic first: quoted text becomes "…", so that one
 * message about different names is one group.
 */
export function groupCounts(items: readonly { source: string; keys: readonly string[] }[], samples: number): Group[] {
  const groups = new Map<string, string[]>();
  for (const item of items)
    for (const key of new Set(item.keys.map(generic))) groups.set(key, [...(groups.get(key) ?? []), item.source]);
  return [...groups]
    .map(([key, sources]) => ({ key, files: sources.length, samples: sources.slice(0, samples) }))
    .sort((a, b) => b.files - a.files || a.key.localeCompare(b.key));
}

export function generic(key: string): string {
  return key.replace(/"[^"]*"/g, '"…"');
}
