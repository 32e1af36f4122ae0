import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { KeyedIndex } from "./keyed-index.ts";
import { valuesAt } from "./paths.ts";
import { keyOf, type ValueKey } from "./values.ts";

/** A duplicate found by a unique index, with what MongoDB reports about it. */
export interface DuplicateKey {
  index: IndexSpec;
  keyValue: Document;
}

/**
 * A unique index: key of the indexed fields → `_id` key of the owning document. Missing
 * fields index as null, as in MongoDB, so two documents without the field collide.
 */
export class UniqueIndex extends KeyedIndex {
  readonly #owners = new Map<string, ValueKey>();

  /** The (at most one) `_id` key under `key`. */
  ids(key: string): ValueKey[] {
    const owner = this.#owners.get(key);
    return owner === undefined ? [] : [owner];
  }

  /** 1 when a document owns `key`, else 0. */
  count(key: string): number {
    return this.#owners.has(key) ? 1 : 0;
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

  /** Forgets the keys of `doc` (only those it owns: recovery may have replayed loosely). */
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
    for (const field of this.fields) {
      const values = valuesAt(doc, field);
      out[field] = values[0] === undefined ? null : values[0];
    }
    return out;
  }
}
