import type { Document } from "bson";
import { CommandError } from "../errors.ts";
import { valueText } from "../bson.ts";
import type { DuplicateKey } from "../store/unique.ts";

/** The fields MongoDB puts on a duplicate-key error (code 11000). */
export function duplicateFields(db: string, coll: string, dup: DuplicateKey): Document {
  return {
    code: 11000,
    errmsg: `E11000 duplicate key error collection: ${db}.${coll} index: ${dup.index.name} dup key: ${
      valueText(dup.keyValue)
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
