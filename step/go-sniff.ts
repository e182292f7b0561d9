/**
 * Go's `http.DetectContentType` (net/http/sniff.go, the WHATWG MIME sniffing table): resty gives
 * a request body of bytes this type when the user set no Content-Type, and Dagu's http executor
 * always hands resty bytes. So JSON text is `text/plain; charset=utf-8`, as in Dagu, not
 * `application/json`. Pure.
 */

/** Go looks at no more than this many bytes. */
const SNIFF_LEN = 512;

const bytes = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

interface Signature {
  /** Bytes as written in Go's table (\xNN for a byte). */
  readonly pattern: Uint8Array;
  /** A byte of the data is ANDed with its mask before the comparison; absent: all bits count. */
  readonly mask?: Uint8Array;
  /** Compare from the first byte that is not whitespace. */
  readonly skipSpace?: boolean;
  readonly type: string;
}

const exact = (pattern: string, type: string): Signature => ({ pattern: bytes(pattern), type });
const masked = (mask: string, pattern: string, type: string, skipSpace = false): Signature => ({
  pattern: bytes(pattern),
  mask: bytes(mask),
  type,
  skipSpace,
});

/** Tags that make a body HTML when one starts it (after whitespace, any case, then a space or `>`). */
const HTML_TAGS = [
  '<!DOCTYPE HTML',
  '<HTML',
  '<HEAD',
  '<SCRIPT',
  '<IFRAME',
  '<H1',
  '<DIV',
  '<FONT',
  '<TABLE',
  '<A',
  '<STYLE',
  '<TITLE',
  '<B',
  '<BODY',
  '<BR',
  '<P',
  '<!--',
];

/** Go's table after the HTML tags, in its order: the first match wins. */
const SIGNATURES: readonly Signature[] = [
  masked('\xFF\xFF\xFF\xFF\xFF', '<?xml', 'text/xml; charset=utf-8', true),
  exact('%PDF-', 'application/pdf'),
  exact('%!PS-Adobe-', 'application/postscript'),
  masked('\xFF\xFF\x00\x00', '\xFE\xFF\x00\x00', 'text/plain; charset=utf-16be'),
  masked('\xFF\xFF\x00\x00', '\xFF\xFE\x00\x00', 'text/plain; charset=utf-16le'),
  masked('\xFF\xFF\xFF\x00', '\xEF\xBB\xBF\x00', 'text/plain; charset=utf-8'),
  exact('\x00\x00\x01\x00', 'image/x-icon'),
  exact('\x00\x00\x02\x00', 'image/x-icon'),
  exact('BM', 'image/bmp'),
  exact('GIF87a', 'image/gif'),
  exact('GIF89a', 'image/gif'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00WEBPVP', 'image/webp'),
  exact('\x89PNG\x0D\x0A\x1A\x0A', 'image/png'),
  exact('\xFF\xD8\xFF', 'image/jpeg'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'FORM\x00\x00\x00\x00AIFF', 'audio/aiff'),
  masked('\xFF\xFF\xFF', 'ID3', 'audio/mpeg'),
  masked('\xFF\xFF\xFF\xFF\xFF', 'OggS\x00', 'application/ogg'),
  masked('\xFF\xFF\xFF\xFF\xFF\xFF\xFF\xFF', 'MThd\x00\x00\x00\x06', 'audio/midi'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00AVI ', 'video/avi'),
  masked('\xFF\xFF\xFF\xFF\x00\x00\x00\x00\xFF\xFF\xFF\xFF', 'RIFF\x00\x00\x00\x00WAVE', 'audio/wave'),
  // video/mp4 is checked here in Go's order: see isMp4.
  exact('\x1A\x45\xDF\xA3', 'video/webm'),
  masked(`${'\x00'.repeat(34)}\xFF\xFF`, `${'\x00'.repeat(34)}LP`, 'application/vnd.ms-fontobject'),
  exact('\x00\x01\x00\x00', 'font/ttf'),
  exact('OTTO', 'font/otf'),
  exact('ttcf', 'font/collection'),
  exact('wOFF', 'font/woff'),
  exact('wOF2', 'font/woff2'),
  exact('\x1F\x8B\x08', 'application/x-gzip'),
  exact('PK\x03\x04', 'application/zip'),
  exact('Rar!\x1A\x07\x00', 'application/x-rar-compressed'),
  exact('Rar!\x1A\x07\x01\x00', 'application/x-rar-compressed'),
  exact('\x00\x61\x73\x6D', 'application/wasm'),
];
const MP4_BEFORE = SIGNATURES.findIndex((s) => s.type === 'video/webm');

const isSpace = (b: number): boolean => b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;

function matches(data: Uint8Array, sig: Signature): boolean {
  if (data.length < sig.pattern.length) return false;
  return sig.pattern.every((p, i) => ((data[i] ?? 0) & (sig.mask?.[i] ?? 0xff)) === p);
}

function isHtml(data: Uint8Array, tag: string): boolean {
  if (data.length < tag.length + 1) return false;
  for (let i = 0; i < tag.length; i++) {
    const want = tag.charCodeAt(i);
    // Letters of the tag match either case; other bytes exactly.
    const got = want >= 0x41 && want <= 0x5a ? (data[i] ?? 0) & 0xdf : data[i];
    if (got !== want) return false;
  }
  const next = data[tag.length];
  return next === 0x20 || next === 0x3e;
}

/** An ISO base media file whose `ftyp` box names an mp4 brand. */
function isMp4(data: Uint8Array): boolean {
  if (data.length < 12) return false;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const boxSize = view.getUint32(0);
  if (data.length < boxSize || boxSize % 4 !== 0) return false;
  if (Buffer.from(data.subarray(4, 8)).toString('latin1') !== 'ftyp') return false;
  for (let at = 8; at < boxSize; at += 4) {
    // Bytes 12 to 15 are the major brand's version, not a brand.
    if (at !== 12 && Buffer.from(data.subarray(at, at + 3)).toString('latin1') === 'mp4') return true;
  }
  return false;
}

/** Text unless a byte is one no text has (controls other than tab, newlines, form feed, escape). */
function isText(data: Uint8Array): boolean {
  return data.every((b) => !(b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f)));
}

export function detectContentType(body: Uint8Array): string {
  const data = body.subarray(0, SNIFF_LEN);
  let first = 0;
  while (first < data.length && isSpace(data[first] ?? 0)) first++;
  const trimmed = data.subarray(first);
  if (HTML_TAGS.some((tag) => isHtml(trimmed, tag))) return 'text/html; charset=utf-8';
  for (const [index, sig] of SIGNATURES.entries()) {
    if (index === MP4_BEFORE && isMp4(data)) return 'video/mp4';
    if (matches(sig.skipSpace === true ? trimmed : data, sig)) return sig.type;
  }
  return isText(trimmed) ? 'text/plain; charset=utf-8' : 'application/octet-stream';
}
