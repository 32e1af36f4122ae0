import type { Document, ObjectId } from "bson";
import { CommandError } from "../errors.ts";
import { bsonTag, isPlainObject } from "../bson.ts";
import type { DuplicateKey } from "../store/unique.ts";

/** Renders a value the way MongoDB's duplicate-key messages do. */
function show(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || v === undefined) return "null";
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (bsonTag(v) === "ObjectId") return `ObjectId('${(v as ObjectId).toHexString()}')`;
  if (Array.isArray(v)) return `[ ${v.map(show).join(", ")} ]`;
  if (isPlainObject(v)) return showDoc(v);
  return String(v);
}

function showDoc(doc: Document): string {
  const fields = Object.keys(doc).map((k) => `${k}: ${show(doc[k])}`);
  return fields.length ? `{ ${fields.join(", ")} }` : "{}";
}

/** The fields MongoDB puts on a duplicate-key error (code 11000). */
export function duplicateFields(db: string, coll: string, dup: DuplicateKey): Document {
  return {
    code: 11000,
    errmsg: `E11000 duplicate key error collection: ${db}.${coll} index: ${dup.index.name} dup key: ${
      showDoc(dup.keyValue)
    }`,
    keyPattern: dup.index.key,
    keyValue: dup.keyValue,
  };
}

/** A duplicate key as a write error entry of an insert/update reply. */
export function duplicateWriteError(index: number, db: string, coll: string, dup: DuplicateKey): Document {
  return { index, ...duplicateFields(db, coll, dup) };
}

/** A duplicate key as a whole-command error (findAndModify, createIndexes). */
export function duplicateError(db: string, coll: string, dup: DuplicateKey): CommandError {
  const { errmsg, keyPattern, keyValue } = duplicateFields(db, coll, dup);
  return new CommandError("DuplicateKey", errmsg as string, { keyPattern, keyValue });
}
