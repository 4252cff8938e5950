// Small text helpers every layer shares, one copy each (issue 14 item 7).

/** `s` as a literal inside a JavaScript regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * `text` cut to at most `maxBytes` bytes of UTF-8, `marker` (e.g. "…")
 * included when a cut happens. Linear: one encoding, then a back-up of at
 * most three bytes from the bound to a character boundary, so a cut never
 * splits a character or a surrogate pair.
 */
export function clipUtf8(text: string, maxBytes: number, marker = ''): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const markerBytes = Buffer.byteLength(marker, 'utf8');
  if (markerBytes > maxBytes) return clipUtf8(text, maxBytes);
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes - markerBytes;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8') + marker;
}
