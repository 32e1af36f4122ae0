import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";

/** A duplicate found by a unique index, with what MongoDB reports about it. */
export interface DuplicateKey {
  index: IndexSpec;
  keyValue: Document;
}
