import { Binary, BSON, type Document, Long, type ObjectId, type Timestamp } from "bson";
import { Buffer } from "node:buffer";
import { CommandError } from "./errors.ts";
import { approximateSize } from "./sizes.ts";

/**
 * How the engine turns wire bytes into values. Longs stay `Long` and binaries stay `Binary`
 * so that they are written back with the same BSON type; int32 and double both become JS
 * numbers because mingo only understands those for arithmetic and comparison.
 */
export const DESERIALIZE: BSON.DeserializeOptions = {
  promoteLongs: false,
  promoteBuffers: false,
  promoteValues: true,
  bsonRegExp: false,
};

/**
 * Serialisation options: `undefined` (e.g. left by a projection) is dropped, not stored as null.
 * Shared by the wire and the journal, so what is stored is exactly what a reply would carry.
 */
export const SERIALIZE: BSON.SerializeOptions = { ignoreUndefined: true };

/** Parses one BSON document that spans all of `bytes`. */
export function readDocument(bytes: Uint8Array): Document {
  return BSON.deserialize(bytes, DESERIALIZE);
}

/** The largest document a reply may carry: MongoDB's 16 MiB plus its 16 KiB of room for command fields. */
export const MAX_REPLY_DOCUMENT = 16 * 1024 * 1024 + 16 * 1024;

/**
 * Serialises one document for the wire. One larger than MongoDB allows (a `$group` that pushed
 * too much, say) is refused with its code, 10334: js-bson serialises into a fixed 17 MiB buffer
 * and cuts anything longer short without a word, so every longer result must stop here.
 */
export function writeDocument(doc: Document): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = BSON.serialize(doc, SERIALIZE);
  } catch (error) {
    // Some overlong values make js-bson write past its buffer's end instead: a RangeError.
    throw error instanceof RangeError ? tooLarge(doc) ?? error : error;
  }
  if (bytes.length > MAX_REPLY_DOCUMENT) throw tooLarge(doc)!;
  return bytes;
}

/**
 * How large a document may be, by {@link approximateSize}, to be measured exactly for the error:
 * one whose values are shared many times over (`{a: "$x", b: "$x"}` at each of 40 stages) would
 * otherwise take the library's walk longer than the process lives. Beyond it, the message gives
 * this bound for the size.
 */
const MEASURABLE = 256 * 1024 * 1024;

/** MongoDB's 10334 for a document over {@link MAX_REPLY_DOCUMENT}, or undefined when it is not. */
function tooLarge(doc: Document): CommandError | undefined {
  const size = approximateSize(doc, MEASURABLE) > MEASURABLE ? MEASURABLE : BSON.calculateObjectSize(doc, SERIALIZE);
  if (size <= MAX_REPLY_DOCUMENT) return undefined;
  return new CommandError(
    "BSONObjectTooLarge",
    `BSONObj size: ${size} (0x${
      size.toString(16).toUpperCase()
    }) is invalid. Size must be between 0 and ${MAX_REPLY_DOCUMENT}(16MB)`,
  );
}

/**
 * The first key of a document (a command's name, a replacement's first field), or undefined
 * for `{}`. A `for...in` that stops at once: `Object.keys` would copy every key.
 */
export function firstKey(doc: Document): string | undefined {
  for (const k in doc) return k;
  return undefined;
}

/** The `_bsontype` tag of a bson class instance ("ObjectId", "Long"...), or undefined. */
export function bsonTag(v: unknown): string | undefined {
  if (v === null || typeof v !== "object") return undefined;
  const tag = (v as { _bsontype?: unknown })._bsontype;
  return typeof tag === "string" ? tag : undefined;
}

/** A numeric command argument (sent as int32, double or int64) as a JS number; NaN otherwise. */
export function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  switch (bsonTag(v)) {
    case "Long":
      return (v as Long).toNumber();
    case "Int32":
    case "Double":
      return (v as { value: number }).value;
    case "Decimal128":
      return Number((v as object).toString());
  }
  return Number.NaN;
}

/** True for a plain JS object (a BSON embedded document), false for arrays and bson classes. */
export function isPlainObject(v: unknown): v is Document {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A bson class instance in the shell's notation, or undefined for other values (numbers print as themselves). */
function taggedText(v: unknown): string | undefined {
  switch (bsonTag(v)) {
    case "ObjectId":
      return `ObjectId('${(v as ObjectId).toHexString()}')`;
    case "Binary": {
      const binary = v as Binary;
      if (binary.sub_type === Binary.SUBTYPE_UUID && binary.position === 16) {
        return `UUID("${binary.toUUID().toHexString()}")`;
      }
      const bytes = Buffer.from(binary.buffer.buffer, binary.buffer.byteOffset, binary.position);
      return `BinData(${binary.sub_type}, ${bytes.toString("hex").toUpperCase()})`;
    }
    case "Timestamp": {
      const timestamp = v as Timestamp;
      return `Timestamp(${timestamp.high >>> 0}, ${timestamp.low >>> 0})`;
    }
    case "MinKey":
      return "MinKey";
    case "MaxKey":
      return "MaxKey";
  }
  return undefined;
}

/** Items of an array or fields of a document, shown whole or cut at `maxItems` with ", ...". */
function itemsText(items: string[], maxItems: number): string {
  const shown = items.slice(0, maxItems).join(", ");
  return items.length > maxItems ? `${shown}, ...` : shown;
}

/**
 * A value as MongoDB's error messages print it (the shell's notation: `"text"`, `[ 1, 2 ]`,
 * `{ a: 1 }`, `new Date(0)`, `ObjectId('…')`), arrays and documents cut after `maxItems`.
 * @example valueText({ a: [1, "x"] }) // '{ a: [ 1, "x" ] }'
 */
export function valueText(v: unknown, maxItems = Infinity): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined) return "null";
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  const tagged = taggedText(v);
  if (tagged !== undefined) return tagged;
  if (Array.isArray(v)) {
    return v.length === 0 ? "[]" : `[ ${itemsText(v.map((item) => valueText(item, maxItems)), maxItems)} ]`;
  }
  if (isPlainObject(v)) {
    const fields = Object.keys(v).map((k) => `${k}: ${valueText(v[k], maxItems)}`);
    return fields.length === 0 ? "{}" : `{ ${itemsText(fields, maxItems)} }`;
  }
  return String(v);
}

/**
 * A value read as a flag the way MongoDB's `trueValue()` reads it: false for null, a missing
 * value, false and a numeric zero (of any width), true for anything else.
 */
export function trueValue(v: unknown): boolean {
  if (v === undefined || v === null || v === false) return false;
  if (typeof v === "number" || bsonTag(v) !== undefined && !Number.isNaN(toNumber(v))) return toNumber(v) !== 0;
  return true;
}
