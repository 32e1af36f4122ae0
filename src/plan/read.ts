import type { Document } from "bson";
import type { CursorSide, SortKey } from "./keyset.ts";

/** How a list's total is counted (`count=`): see the README's "Count strategies". */
export type CountStrategy = "exact" | "estimated" | "none";

/** Every {@link CountStrategy}, in the order messages list them. */
export const COUNT_STRATEGIES: readonly CountStrategy[] = ["exact", "estimated", "none"];

/** What produced a total: a strategy, or "capped" when a count stopped at its cap. */
export type CountMethod = CountStrategy | "capped";

/** A page's place in the list: after or before a boundary record's sort key. */
export interface KeyPosition {
  side: CursorSide;
  key: unknown[];
}

/** One page of a list as the store reads it: the filter is final, related conditions resolved. */
export interface PageRead {
  /** The model whose records (and store: its time limit, its count bounds) the page reads. */
  model: string;
  filter: Document;
  sort: Document;
  /** The sort's keys up to `_id`: what a page's neighbours are positioned by. */
  keys: readonly SortKey[];
  perPage: number;
  /** Records before the page, for a page by number (0 by cursor). */
  skip: number;
  /** The boundary a cursor page starts from, or null for a page by number. */
  position: KeyPosition | null;
  projection?: Document;
  count: CountStrategy;
}

/**
 * An ancestor of a nested route's records: the record `id` of `model` must exist within
 * `filter` (its read or write scope, under its own parent, reached through that parent's
 * relation), else the request is a 404 on `model`.
 */
export interface AncestorCheck {
  id: number;
  filter: Document;
  model: string;
}

/** How a relation's records attach: the parent's value that children hold, and theirs. */
export type RelationType = "belongsTo" | "hasMany" | "hasOne";

/**
 * One relation level of `with`, as the store reads it for a page of parents: their values of
 * `parentKey` select the related records whose `childKey` holds one (belongsTo: the owners by
 * `_id`; hasMany and hasOne: the children by their foreign key), at most `cap` per parent in
 * `order`, within `filters`, each read with `projection`. `source` is what the caller made the
 * read from (its `with` node), handed back with the records.
 */
export interface RelationRead<Source = unknown> {
  name: string;
  type: RelationType;
  /** The related model, whose records (and store) the level reads. */
  model: string;
  /** The related model's collection, which a read per parent joins. */
  collection: string;
  /** The parents' model: a read per parent starts from its collection (`$lookup`). */
  parentModel: string;
  parentKey: string;
  childKey: string;
  projection: Document;
  order: Document;
  cap: number;
  /** Fixed narrowing: the related model's read scope and the relation's `filter`. */
  filters: readonly Document[];
  /** True when an index the model declares starts with the foreign key: each parent's children are one seek away. */
  indexed: boolean;
  children: readonly RelationRead<Source>[];
  source: Source;
}

/**
 * What a response may still carry, charged as relation levels arrive (see query/budget.ts):
 * related records, counted as often as they are written out, and about how many bytes.
 */
export interface ReadBudget {
  readonly recordsLeft: number;
  /** Takes `copies` of a record of about `bytes` bytes; throws the 400 past either budget. */
  charge(copies: number, bytes: number): void;
  /** Throws the 400 for more related records than the budget allows. */
  overRecords(): never;
}
