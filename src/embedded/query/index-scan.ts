import type { Document } from "bson";
import type { Position, Probe, SortedBlocks } from "../store/blocks.ts";
import type { OrderedIndex } from "../store/ordered-index.ts";
import { compareValues, keyOf, type ValueKey } from "../store/values.ts";
import { atInterruptPoint, checkForInterrupt } from "./interrupts.ts";
import { allPoints, compareToEndpoint, type FieldBounds, FULL, inBounds, type Interval, isFull } from "./bounds.ts";

/** Most point combinations (e.g. two `$in` lists on a compound index) a scan expands to. */
export const MAX_RANGES = 1000;

/** Work counters of one read, as explain reports them. */
export interface ScanStats {
  keysExamined: number;
  docsExamined: number;
}

/**
 * The fields a scan bounds: the index's own, then `_id`, which orders the entries of equal keys
 * (unless the index names `_id` itself). So `{name: "Bo", _id: {$gt: 7}}` seeks straight to
 * the first "Bo" after 7 instead of reading every "Bo" before it.
 */
export function scanFields(index: OrderedIndex): readonly string[] {
  let fields = scanFieldLists.get(index);
  if (fields === undefined) {
    fields = index.fields.includes("_id") ? index.fields : [...index.fields, "_id"];
    scanFieldLists.set(index, fields);
  }
  return fields;
}

/** {@link scanFields} of each index, made once: the planner asks for them on every read. */
const scanFieldLists = new WeakMap<OrderedIndex, readonly string[]>();

const scanDirections = new WeakMap<SortedBlocks, readonly (1 | -1)[]>();

/** The direction of each scan field (see {@link scanFields}): `_id` ascends within equal keys. Made once per index. */
function scanDirs(entries: SortedBlocks): readonly (1 | -1)[] {
  let dirs = scanDirections.get(entries);
  if (dirs === undefined) scanDirections.set(entries, dirs = [...entries.dirs, 1]);
  return dirs;
}

/** Scan field `f` of an entry (key values at `keys[base..]`): its key value, or past the key, the document's `_id`. */
function fieldOf(
  keys: readonly unknown[],
  base: number,
  doc: number,
  width: number,
  f: number,
  idOf: (doc: number) => unknown,
): unknown {
  return f < width ? keys[base + f] : idOf(doc);
}

/** A stretch of the index: equal to `prefix` on the first fields, then within `interval`, if any. */
export interface Range {
  prefix: unknown[];
  interval?: Interval;
}

/** What one index scan reads: the index, its bounds per field, and the direction. */
export interface ScanSpec {
  index: OrderedIndex;
  bounds: FieldBounds[];
  reverse: boolean;
}

/**
 * The stretches of the index the bounds select, in index order: every combination of the
 * leading fields bounded to points, then the intervals of the next field. Undefined when the
 * combinations exceed {@link MAX_RANGES}.
 */
export function scanRanges(index: OrderedIndex, bounds: FieldBounds[]): Range[] | undefined {
  const dirs = scanDirs(index.entries);
  let p = 0;
  while (p < bounds.length && allPoints(bounds[p])) p++;
  let prefixes: unknown[][] = [[]];
  for (let f = 0; f < p; f++) {
    if (bounds[f].intervals.length === 1) {
      // One value (an equality, as on every keyset branch): extend each prefix, all of them made here, in place.
      for (const prefix of prefixes) prefix.push(bounds[f].intervals[0].lo.value);
      continue;
    }
    const values = bounds[f].intervals.map((iv) => iv.lo.value);
    if (dirs[f] === -1) values.reverse();
    if (prefixes.length * values.length > MAX_RANGES) return undefined;
    prefixes = prefixes.flatMap((pre) => values.map((v) => [...pre, v]));
  }
  if (p === bounds.length) return prefixes.map((prefix) => ({ prefix }));
  const intervals = dirs[p] === -1 ? [...bounds[p].intervals].reverse() : bounds[p].intervals;
  if (prefixes.length * intervals.length > MAX_RANGES) return undefined;
  return prefixes.flatMap((prefix) => intervals.map((interval) => ({ prefix, interval })));
}

function comparePrefix(
  keys: readonly unknown[],
  base: number,
  doc: number,
  width: number,
  prefix: unknown[],
  dirs: readonly (1 | -1)[],
  idOf: (doc: number) => unknown,
): number {
  for (let f = 0; f < prefix.length; f++) {
    const c = compareValues(fieldOf(keys, base, doc, width, f, idOf), prefix[f]) * dirs[f];
    if (c !== 0) return c;
  }
  return 0;
}

// The probes run on every comparison of a seek: they create no closure of their own.

/** Negative while an entry lies before the start of `range`. */
export function startProbe(range: Range, entries: SortedBlocks): Probe {
  const dirs = scanDirs(entries);
  const { width, idOf } = entries;
  return (keys, base, doc) => {
    const c = comparePrefix(keys, base, doc, width, range.prefix, dirs, idOf);
    if (c !== 0 || !range.interval) return c;
    const p = range.prefix.length;
    const ep = dirs[p] === 1 ? range.interval.lo : range.interval.hi;
    return compareToEndpoint(fieldOf(keys, base, doc, width, p, idOf), ep.value) * dirs[p] || (ep.inclusive ? 0 : -1);
  };
}

/** Negative while an entry lies at or before the end of `range`. */
export function endProbe(range: Range, entries: SortedBlocks): Probe {
  const dirs = scanDirs(entries);
  const { width, idOf } = entries;
  return (keys, base, doc) => {
    const c = comparePrefix(keys, base, doc, width, range.prefix, dirs, idOf);
    if (c !== 0) return c;
    if (!range.interval) return -1;
    const p = range.prefix.length;
    const ep = dirs[p] === 1 ? range.interval.hi : range.interval.lo;
    return compareToEndpoint(fieldOf(keys, base, doc, width, p, idOf), ep.value) * dirs[p] || (ep.inclusive ? -1 : 0);
  };
}

/** Entries from `a` (inclusive) to `b` (exclusive) when no write happened in between. */
function distance(entries: SortedBlocks, a: Position, b: Position): number {
  return Math.max(0, entries.rank(b) - entries.rank(a));
}

/** How many entries the ranges hold, in O(log n) per range (an estimate when later fields filter). */
export function countInRanges(entries: SortedBlocks, ranges: Range[]): number {
  let n = 0;
  for (const range of ranges) {
    // The whole index (a sort read in index order without bounds, on every page): no seeks needed.
    if (range.prefix.length === 0 && range.interval === FULL) n += entries.size;
    else n += distance(entries, entries.seek(startProbe(range, entries)), entries.seek(endProbe(range, entries)));
  }
  return n;
}

/** True when the fields after the ranged one restrict nothing, so ranges hold only matching keys. */
export function rangesAreExact(bounds: FieldBounds[]): boolean {
  let p = 0;
  while (p < bounds.length && allPoints(bounds[p])) p++;
  return bounds.slice(p + 1).every(isFull);
}

/** The first position after (or, reversed, before) an entry, found again after writes moved entries. */
function reseek(entries: SortedBlocks, key: unknown[], id: unknown, reverse: boolean): Position {
  const after = entries.seek((keys, base, doc) => {
    for (let f = 0; f < key.length; f++) {
      const c = entries.compareKey(keys[base + f], key[f]) * entries.dirs[f];
      if (c !== 0) return c;
    }
    const c = compareValues(entries.idOf(doc), id);
    return reverse ? (c < 0 ? -1 : 1) : c <= 0 ? -1 : 1;
  });
  return reverse ? entries.prev(after) : after;
}

/** True when the entry at `pos` lies within every interval list of `filters` (undefined: no restriction). */
function passesFilters(
  entries: SortedBlocks,
  key: readonly unknown[],
  doc: number,
  filters: (Interval[] | undefined)[],
): boolean {
  const width = entries.width;
  for (let f = 0; f < filters.length; f++) {
    const intervals = filters[f];
    if (intervals === undefined) continue;
    if (!inBounds(f < width ? key[f] : entries.idOf(doc), intervals)) return false;
  }
  return true;
}

/** One index entry as a scan yields it: the document and its key values. */
export interface Entry {
  /** The document, unless the scan was asked for numbers only. */
  doc: Document | undefined;
  /** The document's number in its collection's DocTable. */
  n: number;
  key: unknown[];
}

/**
 * Reads the documents of the entries within the bounds, in index order (or reverse), each
 * document once. Lazy, and safe across writes between steps: after entries moved it finds
 * its place again from the last entry it read. `skip` entries that pass are passed over
 * without being yielded (only when each document has one entry); when nothing but the ranges
 * restricts the entries, by position, without reading them.
 */
export function* scanIndex(spec: ScanSpec, ranges: Range[], stats: ScanStats, skip = 0): Generator<Document> {
  const seen: Set<ValueKey> | undefined = spec.index.multikey ? new Set() : undefined;
  for (const entry of scanEntries(spec, ranges, stats, seen, skip)) yield entry.doc!;
}

/**
 * {@link scanIndex} of an index that is not multikey, yielding the entries' document numbers
 * and keys without decoding the documents. For a reader that consumes it whole before any write can
 * run (a sort that needs a few fields of each match, then only the page's documents).
 */
export function* scanIndexNumbers(spec: ScanSpec, ranges: Range[], stats: ScanStats): Generator<NumberedEntry> {
  if (spec.index.multikey) throw new Error("scanIndexNumbers reads one entry per document: not a multikey index");
  yield* scanEntries(spec, ranges, stats, undefined, 0, false);
}

/** An index entry as {@link scanIndexNumbers} yields it: its document's number and its key values. */
export interface NumberedEntry {
  n: number;
  key: unknown[];
}

/** {@link scanIndex}, yielding entries; documents already in `seen` are passed over (and added to it). */
export function* scanEntries(
  spec: ScanSpec,
  ranges: Range[],
  stats: ScanStats,
  seen: Set<ValueKey> | undefined,
  skip = 0,
  fetch = true,
): Generator<Entry> {
  const { entries } = spec.index;
  const p = ranges[0]?.interval ? ranges[0].prefix.length : spec.bounds.length;
  const filters = spec.bounds.map((b, f) => (f > p && !isFull(b) ? b.intervals : undefined));
  const ordered = spec.reverse ? [...ranges].reverse() : ranges;
  for (const range of ordered) {
    const start = startProbe(range, entries);
    const end = endProbe(range, entries);
    let pos = spec.reverse ? entries.prev(entries.seek(end)) : entries.seek(start);
    if (skip > 0 && seen === undefined && filters.every((f) => f === undefined)) {
      // Every entry of the range matches: pass over skipped ones by position, without reading them.
      const count = distance(entries, entries.seek(start), entries.seek(end));
      const passed = Math.min(skip, count);
      skip -= passed;
      // Not read, but examined: MongoDB's SKIP below FETCH counts each skipped key (SERVER-13946).
      stats.keysExamined += passed;
      if (passed === count) continue;
      pos = entries.atRank(spec.reverse ? entries.rank(pos) - passed : entries.rank(pos) + passed);
    }
    let epoch = entries.epoch;
    // `pos` is this scan's own (every seek returns a new one): it steps in place.
    for (; entries.valid(pos); spec.reverse ? entries.retreat(pos) : entries.advance(pos)) {
      // The entry's keys, read once: an index that holds none reads them from the document.
      const key = entries.keysAt(pos);
      const n = entries.numberAt(pos);
      if (spec.reverse ? start(key, 0, n) < 0 : end(key, 0, n) >= 0) break;
      // Entries passed over without fetching their document are long work too: check the deadline.
      if (atInterruptPoint(++stats.keysExamined)) checkForInterrupt();
      if (!passesFilters(entries, key, n, filters)) continue;
      if (seen) {
        const id = keyOf(entries.idAt(pos));
        if (seen.has(id)) continue;
        seen.add(id);
      }
      if (skip > 0 && skip--) continue;
      const doc = fetch ? entries.docAt(pos) : undefined;
      yield { doc, n, key };
      if (entries.epoch !== epoch) {
        if (doc === undefined) throw new Error("the index changed under a scan of document numbers");
        // Writes moved entries while the reader held the document: continue after it.
        const again = reseek(entries, key, doc._id, spec.reverse);
        pos = spec.reverse ? entries.next(again) : entries.prev(again);
        epoch = entries.epoch;
      }
    }
  }
}

/** One branch of an `$or` read from an index: its bounds and the stretches they select. */
export interface ScanBranch {
  bounds: FieldBounds[];
  ranges: Range[];
}
