import type { OrderedIndex } from "../../src/embedded/store/ordered-index.ts";

/** Each entry's `_id` and key tuple, in index order: what two builds of one index must agree on. */
export function entriesOf(index: OrderedIndex): unknown[][] {
  const out: unknown[][] = [];
  const { entries } = index;
  for (let pos = entries.seek(() => 0); entries.valid(pos); pos = entries.next(pos)) {
    out.push([entries.docAt(pos)._id, ...index.fields.map((_, f) => entries.keyAt(pos, f))]);
  }
  return out;
}
