/**
 * Approximate sizes of values, MongoDB's way (Value::getApproximateSize), for the limits on
 * what a command may make the engine hold (query/memory.ts) and for deciding when a document
 * is too large to measure exactly.
 */

/** The `_bsontype` tag of a bson class instance, or undefined. */
function tagOf(value: object): string | undefined {
  const tag = (value as { _bsontype?: unknown })._bsontype;
  return typeof tag === "string" ? tag : undefined;
}

/** What MongoDB counts for any value (sizeof(Value)). */
const VALUE = 16;
/** A vector's own bytes, and what a document costs besides its fields (estimates). */
const ARRAY = 24;
const DOCUMENT = 64;

/**
 * The approximate size of a value, MongoDB's way: 16 bytes, plus a string's length, binary
 * data's bytes, and an array's or document's contents. The walk stops once past `budget`,
 * so a huge (or shared, or cyclic) value costs no more than the budget to measure.
 */
export function approximateSize(value: unknown, budget = Number.MAX_SAFE_INTEGER): number {
  return budget - measured(value, budget, 0);
}

/** `left` less what `value` costs, stopping once below zero. */
function measured(value: unknown, left: number, depth: number): number {
  left -= VALUE;
  if (left < 0 || depth > 200) return left;
  if (typeof value === "string") return left - value.length;
  if (Array.isArray(value)) {
    left -= ARRAY;
    for (let i = 0; i < value.length && left >= 0; i++) left = measured(value[i], left, depth + 1);
    return left;
  }
  if (value instanceof Uint8Array) return left - value.byteLength;
  if (typeof value !== "object" || value === null || value instanceof Date) return left;
  const tag = tagOf(value);
  if (tag === "Binary") return left - (value as { position: number }).position;
  if (tag !== undefined) return left;
  left -= DOCUMENT;
  for (const name in value) {
    if (left < 0) return left;
    left = measured((value as Record<string, unknown>)[name], left - name.length - 1, depth + 1);
  }
  return left;
}
