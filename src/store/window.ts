import type { Document } from "bson";
import { allOf } from "../plan/conditions.ts";
import { keyOf, keysetFilter, reversed } from "../plan/keyset.ts";
import type { KeyPosition, PageRead } from "../plan/read.ts";
import type { RecordStore, StoredDocument } from "./records.ts";

/** What a window read needs of a page: everything but the count. */
type WindowRequest = Omit<PageRead, "collection" | "count">;

/** One page in list order, and the keys its neighbours start from (null at either end). */
export interface Window {
  docs: StoredDocument[];
  next: unknown[] | null;
  prev: unknown[] | null;
}

/** Reads one more than a page: the extra record says whether there is a page beyond. */
async function readPlusOne(store: RecordStore, request: WindowRequest, filter: Document, sort: Document, skip: number) {
  const docs = await store.find({ filter, sort, skip, limit: request.perPage + 1, projection: request.projection });
  const more = docs.length > request.perPage;
  if (more) docs.pop();
  return { docs, more };
}

/** An offset page: the next page exists if a record follows; the previous one if the page starts past the first. */
async function offsetWindow(store: RecordStore, request: WindowRequest): Promise<Window> {
  const { docs, more } = await readPlusOne(store, request, request.filter, request.sort, request.skip);
  const { keys } = request;
  return {
    docs,
    next: more ? keyOf(docs[docs.length - 1], keys) : null,
    prev: request.skip > 0 && docs.length > 0 ? keyOf(docs[0], keys) : null,
  };
}

/**
 * Whether any record lies on the side of the boundary the client came from, when the boundary
 * record itself is gone: anything beyond it that way (records there may have been deleted
 * since the cursor was made). Read in that direction from the boundary, so the first entry answers.
 */
async function anyBehind(store: RecordStore, request: WindowRequest, position: KeyPosition): Promise<boolean> {
  const { filter, keys } = request;
  const forward = position.side === "after";
  const behind = allOf([filter, keysetFilter(keys, position.key, forward ? "before" : "after")]);
  const sort = forward ? reversed(keys) : Object.fromEntries(keys);
  return (await store.find({ filter: behind, sort, skip: 0, limit: 1, projection: { _id: 1 } })).length > 0;
}

/**
 * A page by key: a range on the sort keys after (or before, read in reverse order) the
 * boundary. The range takes the boundary record in too: when it is still there (the common
 * case), it comes first and says that something lies on the side the client came from, so
 * one find serves the page. Only when it was deleted or moved is that side asked separately.
 */
async function keyWindow(store: RecordStore, request: WindowRequest, position: KeyPosition): Promise<Window> {
  const { filter, keys } = request;
  const forward = position.side === "after";
  const range = allOf([filter, keysetFilter(keys, position.key, position.side, true)]);
  const sort = forward ? request.sort : reversed(keys);
  const docs = await store.find({
    filter: range,
    sort,
    skip: 0,
    limit: request.perPage + 2,
    projection: request.projection,
  });
  const boundary = docs.length > 0 && docs[0]._id === position.key[keys.length - 1];
  if (boundary) docs.shift();
  const back = boundary || (await anyBehind(store, request, position));
  const more = docs.length > request.perPage;
  docs.length = Math.min(docs.length, request.perPage);
  if (!forward) docs.reverse();
  const first = docs.length > 0 ? keyOf(docs[0], keys) : position.key;
  const last = docs.length > 0 ? keyOf(docs[docs.length - 1], keys) : position.key;
  if (forward) return { docs, next: more ? last : null, prev: back ? first : null };
  return { docs, prev: more ? first : null, next: back ? last : null };
}

/** Reads the page a list request asks for, by offset or by key. */
export function readWindow(store: RecordStore, request: WindowRequest): Promise<Window> {
  return request.position === null ? offsetWindow(store, request) : keyWindow(store, request, request.position);
}
