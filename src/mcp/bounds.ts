// Bounds of a parsed JSON value without recursion: a deeply nested argument
// (thousands of levels in a few KB) must be a -32602, not a stack overflow in
// JSON.stringify or a recursive validator.

export type JsonBounds = { readonly ok: true; readonly bytes: number } | { readonly ok: false; readonly reason: 'depth' | 'bytes'; readonly limit: number };

/**
 * The byte length of `value` as compact JSON (what JSON.stringify would give),
 * computed with an explicit stack; stops as soon as the nesting exceeds
 * `maxDepth` or the size exceeds `maxBytes`.
 */
export function jsonBounds(value: unknown, maxDepth: number, maxBytes: number): JsonBounds {
  let bytes = 0;
  const stack: { v: unknown; depth: number }[] = [{ v: value, depth: 0 }];
  while (stack.length > 0) {
    const { v, depth } = stack.pop()!;
    if (v !== null && typeof v === 'object') {
      if (depth + 1 > maxDepth) return { ok: false, reason: 'depth', limit: maxDepth };
      if (Array.isArray(v)) {
        // brackets and commas; an undefined or function element would be "null"
        bytes += 2 + Math.max(0, v.length - 1);
        for (const item of v) stack.push({ v: item === undefined || typeof item === 'function' ? null : item, depth: depth + 1 });
      } else {
        const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && typeof x !== 'function');
        bytes += 2 + Math.max(0, entries.length - 1);
        for (const [k, x] of entries) {
          bytes += Buffer.byteLength(JSON.stringify(k)) + 1;
          stack.push({ v: x, depth: depth + 1 });
        }
      }
    } else {
      bytes += Buffer.byteLength(JSON.stringify(v) ?? 'null');
    }
    if (bytes > maxBytes) return { ok: false, reason: 'bytes', limit: maxBytes };
  }
  return { ok: true, bytes };
}
