import type { Document } from "bson";
import type { IndexSpec } from "../changes.ts";
import { valuesAt } from "./paths.ts";
import { Posting } from "./posting.ts";
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

  /** `_id` keys of the documents indexed under `key`, in `_id` order. */
  abstract ids(key: string): readonly ValueKey[];
  /** How many documents are indexed under `key`. */
  abstract count(key: string): number;
  /** Records the keys of a stored document. */
  abstract add(doc: Document): void;
  /** Forgets the keys of a document being replaced or deleted. */
  abstract remove(doc: Document): void;
  /** Forgets everything. */
  abstract clear(): void;

  /** Moves the keys of a stored document to its new version `doc` (same `_id`). */
  replace(old: Document, doc: Document): void {
    this.remove(old);
    this.add(doc);
  }
}

/** A non-unique index: key → the documents carrying it, readable in `_id` order. */
export class MultiIndex extends KeyedIndex {
  readonly #entries = new Map<string, Posting>();

  /** `_id` keys under `key`, in `_id` order. */
  ids(key: string): readonly ValueKey[] {
    return this.#entries.get(key)?.inOrder() ?? [];
  }

  /** How many documents carry `key`. */
  count(key: string): number {
    return this.#entries.get(key)?.size ?? 0;
  }

  /** Records the keys of `doc`. */
  add(doc: Document): void {
    this.#file(this.keys(doc), doc._id);
  }

  /** Forgets the keys of `doc`. */
  remove(doc: Document): void {
    this.#unfile(this.keys(doc), keyOf(doc._id));
  }

  /**
   * Touches only the keys that differ between the versions: most updates leave the indexed
   * fields alone, and re-filing an unchanged key would disturb that key's `_id` order.
   */
  override replace(old: Document, doc: Document): void {
    const before = this.keys(old);
    const after = this.keys(doc);
    const had = new Set(before);
    const has = new Set(after);
    this.#unfile(before.filter((k) => !has.has(k)), keyOf(doc._id));
    this.#file(after.filter((k) => !had.has(k)), doc._id);
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
  }

  #file(keys: string[], id: unknown): void {
    const idKey = keyOf(id);
    for (const k of keys) {
      let posting = this.#entries.get(k);
      if (!posting) this.#entries.set(k, (posting = new Posting()));
      posting.add(idKey, id);
    }
  }

  #unfile(keys: string[], idKey: ValueKey): void {
    for (const k of keys) {
      const posting = this.#entries.get(k);
      if (!posting) continue;
      posting.remove(idKey);
      if (posting.size === 0) this.#entries.delete(k);
    }
  }
}
