import type { Db } from "mongodb";

/** A declared index: keys in order, with their directions. */
export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
}

/** What the store needs to know of a model to index its collection (a Model is one). */
export interface IndexedCollection {
  collection: string;
  unique: Iterable<string>;
  indexes: readonly IndexSpec[];
}

/**
 * Creates the model's unique and declared indexes. createIndexes is idempotent, so this runs
 * at every start-up, on the embedded engine and on MongoDB alike.
 */
export async function ensureIndexes(db: Db, model: IndexedCollection): Promise<void> {
  const collection = db.collection(model.collection);
  for (const field of model.unique) {
    await collection.createIndex({ [field]: 1 }, { unique: true, name: `${field}_unique` });
  }
  for (const index of model.indexes) {
    await collection.createIndex(index.keys, {
      unique: index.unique ?? false,
      ...(index.name ? { name: index.name } : {}),
    });
  }
}
