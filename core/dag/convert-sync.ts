/**
 * Writes a rewritten document back onto the parsed YAML of the source, so that what the
 * rewrite kept keeps its comments, its place and its style: a key renamed by the rewrite is
 * the same node with a new name, a value that did not change is the same node. The `yaml`
 * package keeps comments in its syntax tree; js-yaml, which the loader uses for speed, drops
 * them. Only the new parts are new nodes.
 */
import { isMap, isScalar, isSeq, type Document, type Node, type Pair } from 'yaml';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/**
 * Keys a rewrite gives a new name beyond a change of case and underscores, by the new name:
 * the source keys it may come from, in order.
 */
const FROM: Readonly<Record<string, readonly string[]>> = {
  command: ['run', 'exec', 'action'],
  call: ['run', 'action'],
  script: ['run', 'action'],
  type: ['executor', 'action'],
  config: ['with', 'executor'],
  params: ['with'],
  cancel: ['abort'],
  abort: ['cancel'],
  tags: ['labels'],
  preconditions: ['precondition'],
  working_dir: ['dir', 'workDir'],
};

const loose = (key: string): string => key.toLowerCase().replaceAll('_', '');

/** The node for `value`, reusing `node` (and below it) where the value kept its shape. */
export function syncNode(doc: Document, node: unknown, value: unknown): unknown {
  if (isMapping(value) && isMap(node)) {
    node.items = syncPairs(doc, node.items, value);
    return node;
  }
  if (Array.isArray(value) && isSeq(node)) {
    const items = node.items;
    node.items = value.map((item: unknown, i) =>
      i < items.length ? syncNode(doc, items[i], item) : doc.createNode(item),
    );
    return node;
  }
  if (isScalar(node) && typeof node.value === typeof value && !isMapping(value) && !Array.isArray(value)) {
    if (node.value !== value) node.value = value;
    return node;
  }
  const created = doc.createNode(value) as Node;
  if (isScalar(node) || isMap(node) || isSeq(node)) {
    created.comment = node.comment;
    created.commentBefore = node.commentBefore;
  }
  return created;
}

function syncPairs(doc: Document, pairs: readonly Pair[], value: Mapping): Pair[] {
  const used = new Set<number>();
  const keyOf = (pair: Pair): string => (isScalar(pair.key) ? String(pair.key.value) : '');
  const find = (key: string): number => {
    const free = (i: number): boolean => !used.has(i);
    const exact = pairs.findIndex((pair, i) => free(i) && keyOf(pair) === key);
    if (exact !== -1) return exact;
    const alike = pairs.findIndex((pair, i) => free(i) && loose(keyOf(pair)) === loose(key));
    if (alike !== -1) return alike;
    for (const from of FROM[key] ?? []) {
      const found = pairs.findIndex((pair, i) => free(i) && keyOf(pair) === from);
      if (found !== -1) return found;
    }
    return -1;
  };
  // A kept pair stays where the source had it; a new one follows the key before it.
  const ranked: { rank: number; pair: Pair }[] = [];
  let rank = -1;
  for (const [key, item] of Object.entries(value)) {
    const at = find(key);
    if (at === -1) {
      rank += 0.001;
      ranked.push({ rank, pair: doc.createPair(key, item) });
      continue;
    }
    used.add(at);
    const pair = pairs[at] as Pair;
    if (isScalar(pair.key)) pair.key.value = key;
    pair.value = syncNode(doc, pair.value, item);
    rank = at;
    ranked.push({ rank, pair });
  }
  return ranked.sort((a, b) => a.rank - b.rank).map((entry) => entry.pair);
}
