import type { Db } from "mongodb";

/** What the check needs to know of a model (a Model is one). */
export interface RenamedCollection {
  name: string;
  collection: string;
  former?: { readonly collection: string; readonly route?: string };
}

/**
 * Stops start-up when a model's records sit under the collection name an earlier version
 * derived (`persons`) while today's (`people`) does not exist yet: starting would serve an
 * empty collection and hide every record. Costs one listCollections, and one findOne when the
 * old name exists, at start-up only and only for models whose derived names changed.
 */
export async function refuseHiddenRecords(db: Db, model: RenamedCollection): Promise<void> {
  const former = model.former;
  if (former === undefined) return;
  const names = { $in: [former.collection, model.collection] };
  const found = await db.listCollections({ name: names }, { nameOnly: true }).toArray();
  const has = (name: string): boolean => found.some((collection) => collection.name === name);
  if (!has(former.collection) || has(model.collection)) return;
  if ((await db.collection(former.collection).findOne({}, { projection: { _id: 1 } })) === null) return;
  throw new TypeError(formerCollectionMessage(model, former));
}

function formerCollectionMessage(model: RenamedCollection, former: NonNullable<RenamedCollection["former"]>): string {
  const route = former.route === undefined ? "" : ` (and route: "${former.route}" to keep its URLs)`;
  return `Model ${model.name}: its records are in collection "${former.collection}", the name mongorest 0.1.0 ` +
    `derived, but since 0.2.0 its collection is "${model.collection}". Set collection: "${former.collection}"${route} ` +
    `in the model, or rename the collection to "${model.collection}"`;
}
