import type { Document } from "bson";
import type { OrderedDocs } from "../store/ordered.ts";
import { compareToEndpoint, inInterval, type Interval } from "./bounds.ts";
import type { ScanStats } from "./index-scan.ts";

/** Where an interval of `_id` values starts and ends in the `_id` order: [start, end). */
function positions(docs: OrderedDocs, iv: Interval): [start: number, end: number] {
  const start = docs.seekWith((id) => compareToEndpoint(id, iv.lo.value) || (iv.lo.inclusive ? 0 : -1));
  const end = docs.seekWith((id) => compareToEndpoint(id, iv.hi.value) || (iv.hi.inclusive ? -1 : 0));
  return [start, Math.max(start, end)];
}

/** How many documents have an `_id` within the intervals, by position, O(log n) per interval. */
export function countIdRanges(docs: OrderedDocs, intervals: readonly Interval[]): number {
  let n = 0;
  for (const iv of intervals) {
    const [start, end] = positions(docs, iv);
    n += end - start;
  }
  return n;
}

/**
 * Reads the documents whose `_id` lies within the intervals (sorted and disjoint), in `_id`
 * order or reversed, seeking to each interval's first document: `{_id: {$gt: x}}` reads only
 * what follows x. Lazy and safe across writes between steps (see the documents' iterator).
 */
export function* scanIdRanges(
  docs: OrderedDocs,
  intervals: readonly Interval[],
  reverse: boolean,
  stats: ScanStats,
): Generator<Document> {
  for (const iv of reverse ? [...intervals].reverse() : intervals) {
    const [start, end] = positions(docs, iv);
    if (start === end) continue;
    for (const doc of docs.iterate(reverse, reverse ? docs.size - end : start)) {
      // Reading moves one way from inside the interval, so the first id outside it ends it.
      if (!inInterval(doc._id, iv)) break;
      stats.keysExamined++;
      yield doc;
    }
  }
}
