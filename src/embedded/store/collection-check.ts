import type { Document } from "bson";
import type { Position } from "./blocks.ts";
import { type Collection, ID_INDEX } from "./collection.ts";
import { OrderedIndex } from "./ordered-index.ts";
import { compareValues } from "./values.ts";

/** An index entry that should not be there, or one that should and is not (as `validate` lists them). */
export interface EntryProblem {
  indexName: string;
  idKey: Document;
  indexKey: Document;
}

/** What {@link checkCollection} found. */
export interface CollectionCheck {
  records: number;
  /** Entries each index holds, `_id_` first. */
  keysPerIndex: Map<string, number>;
  /** Indexes found inconsistent. */
  invalidIndexes: Set<string>;
  /** The first of the extra and missing entries found ({@link LISTED} at most each), and how many there were. */
  extraIndexEntries: EntryProblem[];
  missingIndexEntries: EntryProblem[];
  extraCount: number;
  missingCount: number;
  errors: string[];
}

/** Problems listed per kind before only counting them (MongoDB caps the lists by size, at 1 MB). */
const LISTED = 100;

/** An index entry read back: its key tuple and its document's `_id`. */
interface Entry {
  key: unknown[];
  id: unknown;
}

/** Orders two entries as `index` does: by key (each field in its direction), then by `_id`. */
function compareEntries(index: OrderedIndex, a: Entry, b: Entry): number {
  const { entries } = index;
  for (let f = 0; f < entries.width; f++) {
    const c = entries.compareKey(a.key[f], b.key[f]) * entries.dirs[f];
    if (c !== 0) return c;
  }
  return compareValues(a.id, b.id);
}

/**
 * The entry at `pos`, or undefined when it names a document the collection no longer holds (a
 * freed one, or a version its `_id` order replaced): reading such an entry's keys would read a
 * document that is not there.
 */
function readEntry(coll: Collection, index: OrderedIndex, pos: Position): Entry | undefined {
  const n = index.entries.numberAt(pos);
  const { table } = coll.docs;
  if (!table.holds(n)) return undefined;
  const id = table.id(n);
  if (coll.docs.numberOf(id) !== n) return undefined;
  return { key: index.entries.keysAt(pos), id };
}

function problem(index: OrderedIndex, entry: Entry | undefined): EntryProblem {
  const indexKey = entry ? Object.fromEntries(index.fields.map((field, f) => [field, entry.key[f]])) : {};
  return { indexName: index.spec.name, idKey: { _id: entry?.id ?? null }, indexKey };
}

/** Walks an index's entries beside a fresh build's; returns how many entries the index holds. */
function compareWithBuild(coll: Collection, index: OrderedIndex, check: CollectionCheck): number {
  const name = index.spec.name;
  const fresh = new OrderedIndex(index.spec, coll.docs.table);
  fresh.build(coll.docs.numbers());
  const held = index.entries;
  const built = fresh.entries;
  const extra = (entry: Entry | undefined) => {
    check.invalidIndexes.add(name);
    if (check.extraCount++ < LISTED) check.extraIndexEntries.push(problem(index, entry));
  };
  const missing = (entry: Entry) => {
    check.invalidIndexes.add(name);
    if (check.missingCount++ < LISTED) check.missingIndexEntries.push(problem(index, entry));
  };
  let count = 0;
  let previous: Entry | undefined;
  const want = built.seek(() => 0);
  for (const pos = held.seek(() => 0); held.valid(pos); held.advance(pos)) {
    count++;
    const entry = readEntry(coll, index, pos);
    if (entry === undefined) {
      extra(undefined);
      continue;
    }
    // Out of order, or the same entry twice: a search in the index may miss entries.
    if (previous !== undefined && compareEntries(index, previous, entry) >= 0) check.invalidIndexes.add(name);
    previous = entry;
    let c = -1;
    for (; built.valid(want); built.advance(want)) {
      const expected = { key: built.keysAt(want), id: built.idAt(want) };
      c = compareEntries(index, expected, entry);
      if (c >= 0) break;
      missing(expected);
    }
    if (c === 0) built.advance(want);
    else extra(entry);
  }
  for (; built.valid(want); built.advance(want)) missing({ key: built.keysAt(want), id: built.idAt(want) });
  if (index.stale) check.invalidIndexes.add(name);
  return count;
}

/** Whether the `_id` order is strictly ascending. */
function idsAscend(coll: Collection): boolean {
  let previous: unknown;
  let first = true;
  const { table } = coll.docs;
  for (const n of coll.docs.numbers()) {
    const id = table.id(n);
    if (!first && compareValues(previous, id) >= 0) return false;
    first = false;
    previous = id;
  }
  return true;
}

/**
 * Checks that a collection's indexes agree with its documents: each index's entries, in order,
 * are exactly those a fresh build from the documents makes (one sort per index, then one merge),
 * and the `_id` order is strictly ascending. Reads every document and every entry, as MongoDB's
 * full validate does.
 */
export function checkCollection(coll: Collection): CollectionCheck {
  const check: CollectionCheck = {
    records: coll.docs.size,
    keysPerIndex: new Map([[ID_INDEX.name, coll.docs.size]]),
    invalidIndexes: new Set(),
    extraIndexEntries: [],
    missingIndexEntries: [],
    extraCount: 0,
    missingCount: 0,
    errors: [],
  };
  if (!idsAscend(coll)) check.invalidIndexes.add(ID_INDEX.name);
  for (const index of coll.orderedIndexes()) {
    check.keysPerIndex.set(index.spec.name, compareWithBuild(coll, index, check));
  }
  for (const name of check.invalidIndexes) check.errors.push(`Index ${name} is inconsistent with the documents.`);
  if (check.extraCount > 0) check.errors.push(`Detected ${check.extraCount} extra index entries.`);
  if (check.missingCount > 0) check.errors.push(`Detected ${check.missingCount} missing index entries.`);
  return check;
}
