import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { valuesAt } from "./paths.ts";
import { keyOf, type ValueKey } from "./values.ts";

/** A duplicate found by a unique index, with what MongoDB reports about it. */
export interface DuplicateKey {
  index: IndexSpec;
  keyValue: Document;
}

/**
 * A unique index: canonical key of the indexed fields → `_id` key of the owning document.
 * Missing fields index as null, as in MongoDB, so two documents without the field collide.
 */
export class UniqueIndex {
  readonly #owners = new Map<string, ValueKey>();

  /** The index this structure enforces. */
  constructor(readonly spec: IndexSpec) {}

  /** The key strings a document produces (several when an indexed field is an array). */
  keys(doc: Document): string[] {
    let keys = [""];
    for (const field of Object.keys(this.spec.key)) {
      const parts = [...new Set(valuesAt(doc, field).map((v) => String(encodeKey(v))))];
      keys = keys.flatMap((prefix) => parts.map((p) => (prefix ? prefix + "\u0000" : "") + p));
    }
    return keys;
  }

  /** The key string for given values of the indexed fields (for equality lookups). */
  keyFor(values: unknown[]): string {
    return values.map((v) => String(encodeKey(v))).join("\u0000");
  }

  /** The `_id` key owning an index key, if any. */
  owner(key: string): ValueKey | undefined {
    return this.#owners.get(key);
  }

  /** Which key of `doc` (if any) is already owned by a document other than `selfId`. */
  conflict(doc: Document, selfId: ValueKey): string | undefined {
    for (const k of this.keys(doc)) {
      const owner = this.#owners.get(k);
      if (owner !== undefined && owner !== selfId) return k;
    }
    return undefined;
  }

  /** Records the keys of `doc`. */
  add(doc: Document): void {
    const id = keyOf(doc._id);
    for (const k of this.keys(doc)) this.#owners.set(k, id);
  }

  /** Forgets the keys of `doc` (only those it owns). */
  remove(doc: Document): void {
    const id = keyOf(doc._id);
    for (const k of this.keys(doc)) if (this.#owners.get(k) === id) this.#owners.delete(k);
  }

  /** Forgets everything. */
  clear(): void {
    this.#owners.clear();
  }

  /** The `{ field: value }` document MongoDB reports as keyValue for a duplicate of `doc`. */
  keyValue(doc: Document): Document {
    const out: Document = {};
    for (const field of Object.keys(this.spec.key)) {
      const values = valuesAt(doc, field);
      out[field] = values[0] === undefined ? null : values[0];
    }
    return out;
  }
}

function encodeKey(v: unknown): ValueKey {
  const k = keyOf(v);
  return typeof k === "number" ? "d" + k : typeof v === "string" ? JSON.stringify(v) : k;
}
