import { compareValues, type ValueKey } from "./values.ts";

/**
 * The documents filed under one key of a non-unique index, readable in `_id` order so that a
 * lookup needs no sort. The order is kept incrementally for the common cases (ids arriving in
 * ascending order, as ObjectIds do; removals) and rebuilt by one sort at the next read
 * otherwise: keeping it exact on every out-of-order insertion would cost a splice each, which
 * is quadratic over a bulk load into one key.
 */
export class Posting {
  /** `_id` values by their canonical key. */
  readonly #ids = new Map<ValueKey, unknown>();
  /** The keys in `_id` order, possibly with removed ones (`#stale`); undefined: rebuild. */
  #order: ValueKey[] | undefined = [];
  #stale = 0;

  /** Number of documents under this key. */
  get size(): number {
    return this.#ids.size;
  }

  /** Files a document by its `_id` key and value. */
  add(key: ValueKey, id: unknown): void {
    if (this.#ids.has(key)) return;
    const order = this.#order;
    if (order && this.#stale === 0 && (order.length === 0 || compareValues(this.#ids.get(order[order.length - 1]), id) < 0)) {
      order.push(key);
    } else {
      // Out of order, or a key that may still sit in the order as removed: sort at next read.
      this.#order = undefined;
      this.#stale = 0;
    }
    this.#ids.set(key, id);
  }

  /** Removes a document by its `_id` key. */
  remove(key: ValueKey): void {
    if (!this.#ids.delete(key)) return;
    const order = this.#order;
    if (!order) return;
    if (order[order.length - 1] === key) order.pop();
    else if (++this.#stale > this.#ids.size) this.#compact(order);
  }

  /** The `_id` keys in `_id` order. Read-only, and only valid until the next change. */
  inOrder(): readonly ValueKey[] {
    if (!this.#order) {
      const ids = this.#ids;
      this.#order = [...ids.keys()].sort((a, b) => compareValues(ids.get(a), ids.get(b)));
    } else if (this.#stale > 0) {
      this.#compact(this.#order);
    }
    return this.#order;
  }

  // Drops removed keys in one pass, so removals cost O(1) each instead of a splice.
  #compact(order: ValueKey[]): void {
    this.#order = order.filter((key) => this.#ids.has(key));
    this.#stale = 0;
  }
}
