/**
 * A run's artifact files in Dagu 2.x's shapes (its document's ArtifactTreeNode and
 * ArtifactPreviewResponse; the rules read in dagucloud/dagu v2.15.1
 * internal/service/frontend/api/v1/dagruns.go): directories first, then names case-blind; a
 * listing shows the top level unless `recursive`; a preview says the kind of file and carries
 * text (markdown, HTML, text) up to 2 MiB. Pure.
 */
import { posix } from 'node:path';

export interface ArtifactEntry {
  readonly path: string;
  readonly size: number;
}

export interface ArtifactTreeNode {
  name: string;
  path: string;
  type: 'directory' | 'file';
  size?: number;
  children?: ArtifactTreeNode[];
}

export type PreviewKind = 'markdown' | 'html' | 'text' | 'image' | 'binary';

export interface ArtifactPreview {
  readonly name: string;
  readonly path: string;
  readonly kind: PreviewKind;
  readonly mimeType: string;
  readonly size: number;
  readonly tooLarge: boolean;
  readonly truncated: boolean;
  readonly content?: string;
}

const TEXT_PREVIEW_BYTES = 2 * 1024 * 1024;
const IMAGE_PREVIEW_BYTES = 5 * 1024 * 1024;

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.txt': 'text/plain',
  '.log': 'text/plain',
  '.csv': 'text/csv',
  '.tsv': 'text/tab-separated-values',
  '.json': 'application/json',
  '.xml': 'application/xml',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.gz': 'application/gzip',
  '.tar': 'application/x-tar',
};

function compare(a: ArtifactTreeNode, b: ArtifactTreeNode): number {
  if (a.type !== b.type) return a.type === 'directory' ? -1 : 1;
  const [left, right] = [a.name.toLowerCase(), b.name.toLowerCase()];
  if (left !== right) return left < right ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** The tree of a run's files: every level when `recursive`, else the top level (directories without children). */
export function artifactTree(files: readonly ArtifactEntry[], recursive: boolean): ArtifactTreeNode[] {
  const root: ArtifactTreeNode[] = [];
  const directories = new Map<string, ArtifactTreeNode[]>([['', root]]);
  const level = (dir: string): ArtifactTreeNode[] => {
    const known = directories.get(dir);
    if (known !== undefined) return known;
    const children: ArtifactTreeNode[] = [];
    const node: ArtifactTreeNode = { name: posix.basename(dir), path: dir, type: 'directory', children };
    level(posix.dirname(dir) === '.' ? '' : posix.dirname(dir)).push(node);
    directories.set(dir, children);
    return children;
  };
  for (const file of files) {
    const dir = posix.dirname(file.path);
    level(dir === '.' ? '' : dir).push({
      name: posix.basename(file.path),
      path: file.path,
      type: 'file',
      size: file.size,
    });
  }
  const sorted = (nodes: ArtifactTreeNode[]): ArtifactTreeNode[] =>
    nodes.sort(compare).map((node) => {
      if (node.type === 'file') return node;
      const { children = [], ...dir } = node;
      return recursive ? { ...dir, children: sorted(children) } : dir;
    });
  return sorted(root);
}

export function mimeTypeOf(path: string, head: Buffer): string {
  const known = MIME_TYPES[posix.extname(path).toLowerCase()];
  if (known !== undefined) return known;
  if (head.length === 0) return 'application/octet-stream';
  // Text when the first bytes are valid UTF-8 without control characters other than white space.
  const sample = head.subarray(0, 512);
  const control = sample.some((byte) => byte < 9 || (byte > 13 && byte < 32));
  return control || !utf8(sample) ? 'application/octet-stream' : 'text/plain; charset=utf-8';
}

/** Whether bytes are UTF-8; a character cut at the end of a sample still counts. */
function utf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export function previewKind(path: string, mimeType: string): PreviewKind {
  const ext = posix.extname(path).toLowerCase();
  if (['.md', '.markdown', '.mdown', '.mkd'].includes(ext)) return 'markdown';
  if (ext === '.html' || ext === '.htm' || mimeType === 'text/html') return 'html';
  if (mimeType.startsWith('image/')) return 'image';
  if (mimeType.startsWith('text/') || /json|xml|yaml|toml|javascript/.test(mimeType)) return 'text';
  return 'binary';
}

/** A file's preview: its kind and type, and its text when it is text of at most 2 MiB. */
export function artifactPreview(path: string, bytes: Buffer): ArtifactPreview {
  const mimeType = mimeTypeOf(path, bytes);
  const kind = previewKind(path, mimeType);
  const limit = kind === 'binary' ? 0 : kind === 'image' ? IMAGE_PREVIEW_BYTES : TEXT_PREVIEW_BYTES;
  const tooLarge = limit > 0 && bytes.length > limit;
  const base = { name: posix.basename(path), path, kind, mimeType, size: bytes.length, tooLarge, truncated: false };
  if (tooLarge || kind === 'image' || kind === 'binary') return base;
  return { ...base, content: bytes.toString('utf8') };
}
