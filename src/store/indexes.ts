import type { CollationOptions, Collection, Db, Document } from "mongodb";
import { StartupError } from "../errors.ts";

/** A declared index: keys in order, with their directions (and a collation, for case-insensitive ones). */
export interface IndexSpec {
  keys: Record<string, 1 | -1>;
  unique?: boolean;
  name?: string;
  collation?: CollationOptions;
}

/** What the store needs to know of a model to index its collection (a Model is one). */
export interface IndexedCollection {
  collection: string;
  unique: Iterable<string>;
  indexes: readonly IndexSpec[];
}

/** A unique field's partial filter (records it leaves out never collide), if it needs one. */
export type UniqueFilter = (field: string) => Document | undefined;

/**
 * Creates the model's unique and declared indexes. createIndexes is idempotent, so this runs
 * at every start-up, on the embedded engine and on MongoDB alike.
 */
export async function ensureIndexes(
  db: Db,
  model: IndexedCollection,
  filterOf: UniqueFilter = () => undefined,
): Promise<void> {
  const collection = db.collection(model.collection);
  const existing = await collection.listIndexes().toArray().catch(() => []);
  for (const field of model.unique) await ensureUnique(collection, existing, field, filterOf(field));
  for (const index of model.indexes) {
    await collection.createIndex(index.keys, {
      unique: index.unique ?? false,
      ...(index.name ? { name: index.name } : {}),
      ...(index.collation ? { collation: index.collation } : {}),
    });
  }
}

/**
 * A unique field's index. Whether the field may be left out decides its variant, and so its
 * name: `<field>_unique` covers every record, `<field>_unique_if_set` (partial) only those with a
 * value. The variant no longer wanted, or one of the same name built with another filter, is
 * replaced, so a model that makes a field optional stops colliding on its absence at the next start.
 */
async function ensureUnique(
  collection: Collection,
  existing: Document[],
  field: string,
  filter: Document | undefined,
): Promise<void> {
  const name = filter ? `${field}_unique_if_set` : `${field}_unique`;
  const same = existing.find((index) => index.name === name);
  if (same && JSON.stringify(same.partialFilterExpression) !== JSON.stringify(filter)) await collection.dropIndex(name);
  try {
    await collection.createIndex({ [field]: 1 }, {
      unique: true,
      name,
      ...(filter && { partialFilterExpression: filter }),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code !== 11000) throw error;
    throw new StartupError(
      `${collection.collectionName}.${field} cannot be unique: two records share a value (${
        (error as Error).message
      }); fix the data or the model's unique list`,
      { cause: error },
    );
  }
  const replaced = filter ? `${field}_unique` : `${field}_unique_if_set`;
  if (existing.some((index) => index.name === replaced)) await collection.dropIndex(replaced);
}
