/**
 * Dagu 2.x's `labels` (and `tags`, its deprecated older name, read only when `labels` is not
 * written) as the 1.x `tags` list, entry by entry (`key` or `key=value`). Dagu reads a string
 * (comma-separated, or space-separated when it holds `key=value` pairs and no comma), a mapping
 * (keys in sorted order) or a list of strings and mappings (internal/spec/types/labels.go);
 * the 1.x normaliser lower-cases them, as Dagu does.
 */
import { childPath, issue, type DagIssue } from './issues.ts';
import { isMapping } from './mapping.ts';

type Mapping = Record<string, unknown>;

/** The document with `labels` (or `tags`) as the 1.x `tags` list. */
export function withLabelsAsTags(document: Mapping, errors: DagIssue[]): Mapping {
  const { labels, ...rest } = document;
  const key = labels === undefined || labels === null ? 'tags' : 'labels';
  const written = key === 'labels' ? labels : rest.tags;
  if (written === undefined || written === null) return rest;
  const { tags: _older, ...others } = rest;
  return { ...others, tags: labelEntries(written, key, errors) };
}

function labelEntries(value: unknown, path: string, errors: DagIssue[]): string[] {
  if (typeof value === 'string') return fromString(value);
  if (isMapping(value)) return fromMapping(value, path, errors);
  if (!Array.isArray(value)) {
    errors.push(issue(path, 'must be a string, a mapping or a list'));
    return [];
  }
  return value.flatMap((item: unknown, i) => {
    if (typeof item === 'string') return fromString(item, false);
    if (isMapping(item)) return fromMapping(item, childPath(path, i), errors);
    errors.push(issue(childPath(path, i), 'must be a string or a mapping'));
    return [];
  });
}

function fromString(text: string, split = true): string[] {
  const trimmed = text.trim();
  if (!split) return trimmed === '' ? [] : [entry(trimmed)];
  const spaced = trimmed.includes('=') && /\s/.test(trimmed) && !trimmed.includes(',');
  return (spaced ? trimmed.split(/\s+/) : trimmed.split(','))
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map(entry);
}

/** `key = value` as `key=value`. */
function entry(part: string): string {
  const at = part.indexOf('=');
  return at < 0 ? part : `${part.slice(0, at).trim()}=${part.slice(at + 1).trim()}`;
}

function fromMapping(mapping: Mapping, path: string, errors: DagIssue[]): string[] {
  return Object.keys(mapping)
    .sort()
    .flatMap((name) => {
      const item = mapping[name];
      if (
        item !== null &&
        item !== undefined &&
        typeof item !== 'string' &&
        typeof item !== 'number' &&
        typeof item !== 'boolean'
      ) {
        errors.push(issue(childPath(path, name), 'must be a string, number or boolean'));
        return [];
      }
      const text = item === null || item === undefined ? '' : String(item).trim();
      return [text === '' ? name.trim() : `${name.trim()}=${text}`];
    });
}
