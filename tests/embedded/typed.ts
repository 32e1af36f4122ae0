import { Decimal128, Double, Int32, Long, ObjectId } from "mongodb";

/** A Decimal128 from its text. */
export const dec = (text: string): Decimal128 => Decimal128.fromString(text);

/** Driver options that read every number as the BSON type it was written as. */
export const RAW = { promoteValues: false, promoteLongs: false } as const;

/** A value's BSON class and text, so that `Long(12)`, `Int32(12)` and `12` read differently. */
export function typed(v: unknown): string {
  if (v instanceof Long) return `Long(${v})`;
  if (v instanceof Decimal128) return `Decimal128(${v})`;
  if (v instanceof Int32) return `Int32(${v.value})`;
  if (v instanceof Double) return `Double(${v.value})`;
  if (v instanceof Date) return `Date(${v.getTime()})`;
  if (v instanceof ObjectId) return `ObjectId(${v.toHexString()})`;
  if (Array.isArray(v)) return `[${v.map(typed).join(", ")}]`;
  return JSON.stringify(v);
}
