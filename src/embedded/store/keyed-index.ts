import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { valuesAt } from "./paths.ts";
import { keyOf, type ValueKey } from "./values.ts";

function encodeKey(v: unknown): string {
  const k = keyOf(v);
  return typeof k === "number" ? "d" + k : typeof v === "string" ? JSON.stringify(v) : k;
}

/**
 * What unique and non-unique indexes share: turning a document, or the values a query pins
 * the indexed fields to, into key strings. Equal keys mean equal in MongoDB's index sense
 * (1, 1.0 and Long(1) agree; a missing field indexes as null), and an array field yields one
 * key per element (multikey).
 */
export abstract class KeyedIndex {
  readonly #fields: string[];

  /** The index this structure serves. */
  constructor(readonly spec: IndexSpec) {
    this.#fields = Object.keys(spec.key);
  }

  /** The indexed fields, in key order. */
  get fields(): readonly string[] {
    return this.#fields;
  }

  /** The distinct key strings a document produces. */
  keys(doc: Document): string[] {
    let keys = [""];
    for (const field of this.#fields) {
      const parts = [...new Set(valuesAt(doc, field).map(encodeKey))];
      keys = keys.flatMap((prefix) => parts.map((p) => (prefix ? prefix + "\u0000" : "") + p));
    }
    return keys;
  }

  /** The key string for given values of the indexed fields (for equality lookups). */
  keyFor(values: readonly unknown[]): string {
    return values.map(encodeKey).join("\u0000");
  }

  /** `_id` keys of the documents indexed under `key`. */
  abstract ids(key: string): Iterable<ValueKey>;
  /** Records the keys of a stored document. */
  abstract add(doc: Document): void;
  /** Forgets the keys of a document being replaced or deleted. */
  abstract remove(doc: Document): void;
  /** Forgets everything. */
  abstract clear(): void;
}

/** A non-unique index: key → `_id` keys of every document carrying it. */
export class MultiIndex extends KeyedIndex {
  readonly #entries = new Map<string, Set<ValueKey>>();

  /** `_id` keys under `key`. */
  ids(key: string): Iterable<ValueKey> {
    return this.#entries.get(key) ?? [];
  }

  /** Records the keys of `doc`. */
  add(doc: Document): void {
    const id = keyOf(doc._id);
    for (const k of this.keys(doc)) {
      let set = this.#entries.get(k);
      if (!set) this.#entries.set(k, (set = new Set()));
      set.add(id);
    }
  }

  /** Forgets the keys of `doc`. */
  remove(doc: Document): void {
    const id = keyOf(doc._id);
    for (const k of this.keys(doc)) {
      const set = this.#entries.get(k);
      if (set?.delete(id) && set.size === 0) this.#entries.delete(k);
    }
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
  }
}
