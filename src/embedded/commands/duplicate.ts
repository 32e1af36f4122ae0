import type { Document } from "bson";
import { CommandError } from "../errors.ts";
import { valueText } from "../bson.ts";
import type { DuplicateKey } from "../store/unique.ts";
import { EMPTY_ARRAY_KEY } from "../store/values.ts";
import { setField } from "../field-names.ts";

/** The fields MongoDB puts on a duplicate-key error (code 11000). */
export function duplicateFields(db: string, coll: string, dup: DuplicateKey): Document {
  return {
    code: 11000,
    errmsg: `E11000 duplicate key error collection: ${db}.${coll} index: ${dup.index.name} dup key: ${
      keyText(dup.keyValue)
    }`,
    keyPattern: dup.index.key,
    keyValue: wireKeyValue(dup.keyValue),
  };
}

/**
 * The key as the server prints it: an empty array's key is BSON undefined there, printed
 * `undefined` (`dup key: { a: undefined }`, key_string.cpp's rehydrated key); a missing
 * field's is null.
 */
function keyText(keyValue: Document): string {
  const fields = Object.keys(keyValue).map((field) => {
    const value = keyValue[field];
    return `${field}: ${value === EMPTY_ARRAY_KEY ? "undefined" : valueText(value)}`;
  });
  return fields.length === 0 ? "{}" : `{ ${fields.join(", ")} }`;
}

/**
 * keyValue as sent: MongoDB sends an empty array's key as BSON undefined, which the engine's
 * writer cannot encode (it drops undefined fields), so it goes as null and the field stays named.
 */
function wireKeyValue(keyValue: Document): Document {
  const out: Document = {};
  for (const field of Object.keys(keyValue)) {
    setField(out, field, keyValue[field] === EMPTY_ARRAY_KEY ? null : keyValue[field]);
  }
  return out;
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
