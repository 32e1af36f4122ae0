import type { Db } from "mongodb";
import type { Model } from "../model/define.ts";

/**
 * Creates the model's unique and declared indexes. createIndexes is idempotent, so this runs
 * at every start-up, on the embedded engine and on MongoDB alike.
 */
export async function ensureIndexes(db: Db, model: Model): Promise<void> {
  const collection = db.collection(model.collection);
  for (const field of model.unique) {
    await collection.createIndex({ [field]: 1 }, { unique: true, name: `${field}_unique` });
  }
  for (const index of model.indexes) {
    await collection.createIndex(index.keys, { unique: index.unique ?? false, ...(index.name ? { name: index.name } : {}) });
  }
}
