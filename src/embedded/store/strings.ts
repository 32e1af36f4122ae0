/**
 * A UTF-16 code unit's place in code point order: surrogates (0xD800-0xDFFF, halves of code
 * points above 0xFFFF) move above 0xE000-0xFFFF, which move down to make room.
 */
function codePointRank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * Two strings in MongoDB's binary order: by their UTF-8 bytes, which is code point order. JS's
 * `<` compares UTF-16 code units, which differs when a code point above 0xFFFF (an emoji) meets
 * one from 0xE000 to 0xFFFF (e.g. fullwidth forms): the first differing units decide, corrected
 * when both are at or above 0xD800.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length < b.length ? -1 : 1;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  if (x >= 0xd800 && y >= 0xd800) return codePointRank(x) < codePointRank(y) ? -1 : 1;
  return x < y ? -1 : 1;
}

/** True when `text` holds a code unit at or above 0xD800, where code unit and code point order may part. */
export function mayPartFromCodeUnitOrder(text: string): boolean {
  return /[\uD800-\uFFFF]/.test(text);
}
