import type { Document } from "bson";
import { CommandError } from "../errors.ts";

/**
 * Index spec fields the engine acts on, plus `v`, `background` (ignored by 4.2+ servers too)
 * and `storageEngine` (a storage setting no client can observe).
 */
const HONOURED = new Set(["key", "name", "unique", "collation", "v", "background", "storageEngine"]);

/**
 * The other fields of a MongoDB 7.0 index spec. The engine cannot honour them, and ignoring
 * them would change what the index means (a `sparse` or partial unique index refuses fewer
 * documents, a TTL index deletes them, a hidden one is not planned), so they are refused.
 * `false` is accepted where it is the default.
 */
const UNSUPPORTED = new Set([
  "sparse",
  "partialFilterExpression",
  "expireAfterSeconds",
  "hidden",
  "prepareUnique",
  "clustered",
  "weights",
  "default_language",
  "language_override",
  "textIndexVersion",
  "2dsphereIndexVersion",
  "bits",
  "min",
  "max",
  "wildcardProjection",
  "coarsestIndexedLevel",
  "finestIndexedLevel",
]);

/**
 * Checks the fields of one index spec like a 7.0 server: an unknown one is refused with
 * InvalidIndexSpecificationOption (code 197), one the engine cannot honour with NotImplemented.
 */
export function checkIndexOptions(raw: Document): void {
  for (const [field, value] of Object.entries(raw)) {
    if (HONOURED.has(field)) continue;
    if (!UNSUPPORTED.has(field)) {
      throw new CommandError(
        "InvalidIndexSpecificationOption",
        `The field '${field}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`,
      );
    }
    if (value !== false) {
      throw new CommandError("NotImplemented", `index option '${field}' is not supported by the embedded engine`);
    }
  }
}
