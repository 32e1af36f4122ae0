import type { SortedBlocks } from "./blocks.ts";
import type { DocTable } from "./doc-table.ts";
import { compareValues } from "./values.ts";

/** What one step of an {@link OrderCheck} found. */
export type OrderCheckResult = "done" | "more" | "wrong";

/**
 * The check of an index order recovery loaded without reading its keys (a snapshot's saved
 * order, see OrderedIndex.buildInOrder), run a slice at a time after start-up: keys never
 * decreasing in index order, equal keys in `_id` order, no array on an indexed field, and
 * every entry naming a stored document. A write in between starts it over: entries moved.
 */
export class OrderCheck {
  /** Entries checked so far, from the first. */
  #rank = 0;
  #epoch: number;

  /** A check of `entries`, whose documents are in `table`, from the start. */
  constructor(private readonly entries: SortedBlocks, private readonly table: DocTable) {
    this.#epoch = entries.epoch;
  }

  /**
   * Checks up to `budget` more entries: "wrong" at the first one out of place (the index must
   * be sorted again), "done" once every entry checked out, "more" otherwise.
   */
  step(budget: number): OrderCheckResult {
    const { entries } = this;
    if (this.#epoch !== entries.epoch) {
      this.#rank = 0;
      this.#epoch = entries.epoch;
    }
    // From the last entry checked, so that the pair across two slices is compared too.
    const pos = entries.atRank(Math.max(0, this.#rank - 1));
    let previous: unknown[] | undefined;
    let previousId: unknown;
    for (let k = 0; k <= budget && entries.valid(pos); k++, entries.advance(pos)) {
      // An entry naming a document gone since is as wrong as one out of order.
      if (!this.table.holds(entries.numberAt(pos))) return "wrong";
      const key = entries.keysAt(pos);
      const id = entries.idAt(pos);
      if (key.some(Array.isArray)) return "wrong";
      if (previous !== undefined && !this.#follows(previous, previousId, key, id)) return "wrong";
      previous = key;
      previousId = id;
    }
    this.#rank += budget;
    return entries.valid(pos) ? "more" : "done";
  }

  /** Whether entry (key, id) sorts after entry (previous, previousId) in the index's order. */
  #follows(previous: unknown[], previousId: unknown, key: unknown[], id: unknown): boolean {
    const { entries } = this;
    for (let f = 0; f < entries.width; f++) {
      const c = entries.compareKey(previous[f], key[f]) * entries.dirs[f];
      if (c !== 0) return c < 0;
    }
    return compareValues(previousId, id) < 0;
  }
}
