/** The second hash as {@link hashPairs} left it (a module variable: storing it needs no type feedback). */
let pairsB = 0;

/**
 * Both FNV-1a hashes over the characters of `body` taken in pairs, up to its last even index:
 * returns the first, leaves the second in `pairsB`. The loop is alone in its function, with
 * nothing after it that needs type feedback: V8 compiles a long loop on stack replacement
 * before the code after it has ever run, and then deoptimized etagOf on that code at every
 * call (hundreds of times a second under varied traffic), each time finishing the loop in the
 * interpreter and keeping the compiler threads busy.
 */
function hashPairs(body: string, n: number, a: number, b: number): number {
  // Two characters per iteration (same hash, same order): about a third less time per body.
  for (let i = 0; i + 1 < n; i += 2) {
    const c = body.charCodeAt(i);
    const d = body.charCodeAt(i + 1);
    a = Math.imul(Math.imul(a ^ c, 0x01000193) ^ d, 0x01000193);
    b = Math.imul(Math.imul(b ^ c, 0x5bd1e995) ^ d, 0x5bd1e995);
  }
  pairsB = b;
  return a;
}

/**
 * A strong ETag for a response body: two 32-bit FNV-1a hashes with different seeds plus the
 * length. Cheap enough for the list's hot path, and a collision needs two bodies of the same
 * length that agree on 64 bits of hash.
 * @example etagOf('{"id":1}') // '"8-…"'
 */
export function etagOf(body: string): string {
  const n = body.length;
  let a = hashPairs(body, n, 0x811c9dc5, 0x01000193 ^ n);
  let b = pairsB;
  if (n % 2 === 1) {
    const c = body.charCodeAt(n - 1);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return `"${n.toString(36)}-${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}"`;
}

function tags(header: string): string[] {
  return header.split(",").map((tag) => tag.trim()).filter(Boolean);
}

/** If-None-Match uses the weak comparison: `W/"x"` matches `"x"`, and `*` matches anything. */
export function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  return tags(header).some((tag) => tag === "*" || tag.replace(/^W\//, "") === etag);
}

/**
 * The ETag of a record response an after-hook reshaped: the record's own tag (as a plain
 * response without the hook would carry it) joined to the tag of the body actually sent. A
 * 304 then still follows the body, while If-Match can check the record's version alone,
 * which the server can recompute without running the hook again.
 * @example hookedEtag('"8-abc"', '"9-def"') // '"8-abc.9-def"'
 */
export function hookedEtag(recordTag: string, bodyTag: string): string {
  return `${recordTag.slice(0, -1)}.${bodyTag.slice(1)}`;
}

/** The record's part of a tag: before the "." of a {@link hookedEtag}, else the whole tag. */
function recordPart(tag: string): string {
  const dot = tag.indexOf(".");
  return dot === -1 ? tag : `${tag.slice(0, dot)}"`;
}

/**
 * If-None-Match on a write (PUT, PATCH, DELETE) of a record that exists: true when it holds,
 * i.e. no listed tag is `*` or, by the weak comparison, the record's own tag (RFC 9110 13.1.2).
 */
export function noneMatchRecord(header: string, etag: string): boolean {
  return !tags(header).some((tag) => tag === "*" || recordPart(tag.replace(/^W\//, "")) === etag);
}

/**
 * If-Match uses the strong comparison: a weak tag never matches. Absent header: no precondition.
 * `etag` is the record's own tag, which a {@link hookedEtag} carries as its first part.
 */
export function ifMatch(header: string | null, etag: string): boolean {
  if (header === null) return true;
  return tags(header).some((tag) => tag === "*" || recordPart(tag) === etag);
}

/**
 * If-Match on a GET or HEAD that would answer 200 with `etag` (RFC 9110 13.1.1): true when it
 * holds or is absent. As on writes, a {@link hookedEtag} is compared by its record's part, so a
 * tag from an earlier response holds as long as the record did not change.
 */
export function ifMatchCurrent(header: string | null, etag: string): boolean {
  return header === null || ifMatch(header, recordPart(etag));
}
