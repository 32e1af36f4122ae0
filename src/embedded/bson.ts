import { BSON, type Document, Long } from "bson";

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

/** Serialises one document for the wire. */
export function writeDocument(doc: Document): Uint8Array {
  return BSON.serialize(doc, SERIALIZE);
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
