import type { Document } from "bson";

/** Key pattern and options of an index as the engine stores it. */
export interface IndexSpec {
  name: string;
  key: Record<string, 1 | -1>;
  unique?: boolean;
  /** The collation the index orders strings by (absent: binary order). */
  collation?: Document;
  /** A TTL index: documents whose indexed date is older than this many seconds are deleted. */
  expireAfterSeconds?: number;
  /** A sparse index: uniqueness applies only to documents that have one of its fields. */
  sparse?: boolean;
  /** A partial index: uniqueness applies only to the documents this filter matches. */
  partialFilterExpression?: Document;
}

/**
 * What `create` and `collMod` set on a collection besides its documents and indexes: its
 * default collation (a collection's or a view's, fixed at `create`), a view's source and
 * pipeline, or a collection's validator and how strictly it applies. Empty for a plain
 * collection. listCollections shows it as the collection's `options`.
 */
export interface CollectionOptions {
  /** The normalised collation spec (see store/collation.ts); absent: binary order. */
  collation?: Document;
  viewOn?: string;
  pipeline?: Document[];
  validator?: Document;
  validationLevel?: "off" | "strict" | "moderate";
  validationAction?: "error" | "warn";
}

/**
 * One durable state change. Commands turn into a list of these; the journal writes them and
 * recovery replays them. Documents are post-images, so replay never re-runs update logic and
 * is deterministic and idempotent.
 */
export type Change =
  | { op: "put"; db: string; coll: string; doc: Document }
  | { op: "delete"; db: string; coll: string; id: unknown }
  | { op: "createCollection"; db: string; coll: string; options?: CollectionOptions }
  | { op: "dropCollection"; db: string; coll: string }
  /** The collection moves to `toDb.toColl` with its documents, indexes and options; any there was dropped first. */
  | { op: "renameCollection"; db: string; coll: string; toDb: string; toColl: string }
  | { op: "dropDatabase"; db: string }
  | { op: "createIndex"; db: string; coll: string; spec: IndexSpec }
  | { op: "dropIndex"; db: string; coll: string; name: string }
  /** A TTL index's expiry set or changed by collMod (the index and its entries stay). */
  | { op: "setIndexExpiry"; db: string; coll: string; name: string; expireAfterSeconds: number }
  | { op: "setOptions"; db: string; coll: string; options: CollectionOptions }
  /**
   * Written by snapshots only: the order of a secondary index's entries, as each entry's
   * position among the collection's documents as the snapshot just listed them (`_id` order),
   * in little-endian Int32s. Entries `from` to `from + positions.length / 4` of `count`: an
   * order comes in parts of at most a million entries, as one BSON document holds at most
   * 16 MiB. Recovery uses it instead of sorting the index, after checking that it orders those
   * documents exactly as a build would, and ignores it otherwise.
   */
  | { op: "indexOrder"; db: string; coll: string; name: string; count: number; from: number; positions: Uint8Array };

/**
 * A put as recovery reads it: the document still encoded, at `bytes[start, start + length)`
 * (a view valid only while the change is applied), stored as it is, never decoded whole.
 */
export interface EncodedPut {
  op: "putEncoded";
  db: string;
  coll: string;
  bytes: Uint8Array;
  start: number;
  length: number;
}

/** What recovery replays: changes, with puts left encoded where it could. */
export type RecoveredChange = Change | EncodedPut;

/**
 * Where the engine sends the changes of each write before it replies. `append` resolves once
 * the changes are durable (for the journal: written and fsync'ed), so the reply that follows
 * is an acknowledgement the client can rely on. The in-memory engine uses a sink that
 * resolves at once.
 */
export interface ChangeSink {
  append(changes: readonly Change[]): Promise<void>;
  close(): Promise<void>;
  /**
   * False when `append` never rejects: the engine then keeps no undo records for the writes
   * it waits on (see Ledger). Absent means it may fail.
   */
  readonly mayFail?: boolean;
}

/** A sink for the in-memory engine: nothing to persist, so nothing can fail. */
export const memorySink: ChangeSink = {
  mayFail: false,
  append: () => Promise.resolve(),
  close: () => Promise.resolve(),
};
