/**
 * Run ids the UI makes (a retry under a new id must name it): UUID version 7, time-ordered
 * like the ids the API server generates. `crypto.getRandomValues`, unlike `randomUUID`, is
 * there on plain-HTTP origins too, where the UI may well be served.
 */
export function newRunId(
  now: number = Date.now(),
  random: (bytes: Uint8Array<ArrayBuffer>) => void = (b) => crypto.getRandomValues(b),
): string {
  const bytes = new Uint8Array(16);
  random(bytes);
  let ms = now;
  for (let i = 5; i >= 0; i -= 1) {
    bytes[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The API's rule for run ids (core/resources/ids.ts): 1-64 letters, digits, "-" and "_". */
export function runIdProblem(id: string): string | undefined {
  if (id === '') return 'A run id is needed.';
  if (id.length > 64) return 'At most 64 characters.';
  return /^[-a-zA-Z0-9_]+$/.test(id) ? undefined : 'Only letters, digits, "-" and "_".';
}
