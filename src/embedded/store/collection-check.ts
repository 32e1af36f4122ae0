import type { Document } from "bson";
import { ID_INDEX } from "./collection.ts";
import type { Collection } from "./collection.ts";
import type { OrderedIndex } from "./ordered-index.ts";
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

/** Problems listed per kind before only counting them, as MongoDB caps what validate returns. */
const LISTED = 100;

function indexKeyOf(index: OrderedIndex, key: readonly unknown[]): Document {
  return Object.fromEntries(index.fields.map((field, f) => [field, key[f]]));
}

/** Whether index entry (key, id) sorts after (previous, previousId). */
function follows(
  index: OrderedIndex,
  previous: readonly unknown[],
  previousId: unknown,
  key: readonly unknown[],
  id: unknown,
) {
  const { entries } = index;
  for (let f = 0; f < entries.width; f++) {
    const c = entries.compareKey(previous[f], key[f]) * entries.dirs[f];
    if (c !== 0) return c < 0;
  }
  return compareValues(previousId, id) < 0;
}

/** Whether `key` is one of `doc`'s key tuples in `index`. */
function producedBy(index: OrderedIndex, doc: Document, key: readonly unknown[]): boolean {
  const { entries } = index;
  return index.keys(doc).some((tuple) => tuple.every((value, f) => entries.compareKey(value, key[f]) === 0));
}

/** Walks an index's entries in order: each must be in its place and name a stored document that produces its key. */
function checkEntries(coll: Collection, index: OrderedIndex, check: CollectionCheck, name: string): number {
  const { entries } = index;
  const { table } = coll.docs;
  let previous: unknown[] | undefined;
  let previousId: unknown;
  let count = 0;
  for (const pos = entries.seek(() => 0); entries.valid(pos); entries.advance(pos)) {
    count++;
    const key = entries.keysAt(pos);
    const n = entries.numberAt(pos);
    const stored = table.holds(n) ? table.decode(n) : undefined;
    const id = stored?._id;
    if (stored === undefined || !producedBy(index, stored, key)) {
      check.invalidIndexes.add(name);
      if (check.extraCount++ < LISTED) {
        check.extraIndexEntries.push({ indexName: name, idKey: { _id: id ?? null }, indexKey: indexKeyOf(index, key) });
      }
    } else if (previous !== undefined && !follows(index, previous, previousId, key, id)) {
      check.invalidIndexes.add(name); // out of order: a search may miss entries
    }
    previous = key;
    previousId = id;
  }
  return count;
}

/** Finds the entries each document should have in each index and lacks. */
function checkDocuments(coll: Collection, indexes: readonly OrderedIndex[], check: CollectionCheck): void {
  let previousId: unknown;
  let first = true;
  for (const doc of coll.docs.iterate()) {
    if (!first && compareValues(previousId, doc._id) >= 0) check.invalidIndexes.add(ID_INDEX.name);
    first = false;
    previousId = doc._id;
    for (const index of indexes) {
      for (const key of index.keys(doc)) {
        if (index.entries.has(key, doc._id)) continue;
        check.invalidIndexes.add(index.spec.name);
        if (check.missingCount++ < LISTED) {
          check.missingIndexEntries.push({
            indexName: index.spec.name,
            idKey: { _id: doc._id },
            indexKey: indexKeyOf(index, key),
          });
        }
      }
    }
  }
}

/**
 * Checks that a collection's indexes agree with its documents: every entry in order and
 * produced by the document it names, every document's keys present, the `_id` order strictly
 * ascending. Reads every document and every entry, as MongoDB's full validate does.
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
  const indexes = [...coll.orderedIndexes()];
  for (const index of indexes) {
    if (index.stale) check.invalidIndexes.add(index.spec.name);
    check.keysPerIndex.set(index.spec.name, checkEntries(coll, index, check, index.spec.name));
  }
  checkDocuments(coll, indexes, check);
  for (const name of check.invalidIndexes) check.errors.push(`Index ${name} is inconsistent with the documents.`);
  if (check.extraCount > 0) check.errors.push(`Detected ${check.extraCount} extra index entries.`);
  if (check.missingCount > 0) check.errors.push(`Detected ${check.missingCount} missing index entries.`);
  return check;
}
