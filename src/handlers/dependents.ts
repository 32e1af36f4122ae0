/**
 * What a DELETE does to the records that point at the deleted one, as its hasMany and hasOne
 * relations' `onDelete` declares (`model/relations.ts`): refuse (`restrict`), delete them too
 * (`cascade`), or clear their foreign key (`setNull`). Children's hooks never run, as with SQL's
 * foreign-key actions.
 */
import type { Document } from "bson";
import { apiError } from "../errors.ts";
import type { Model, Relation } from "../model/define.ts";
import { clearingOf, onDeleteRelations } from "../model/registry.ts";
import type { RecordStore } from "../store/records.ts";
import { allOf, type AppState } from "./route.ts";
import { LIVE, writeScope } from "../query/scope.ts";

/**
 * The children of the records `ids` through foreign key `fk`: a plain equality for one parent.
 * A key that is an array (written around the API, whose foreign keys are ids) points at no one
 * parent, as `with` never attaches it: deleting one of its ids must not delete or clear it.
 */
function pointingAt(fk: string, ids: readonly number[]): Document {
  const match = ids.length === 1 ? { $eq: ids[0] } : { $in: ids };
  return { [fk]: { ...match, $not: { $type: "array" } } };
}

/**
 * Before a delete's write, after its preconditions and before-hook: a 409 naming the record and
 * the relation when a `restrict` relation still has a child that holds it: a live one, or, when
 * the record is `removal` (removed for good, not soft-deleted), a trashed one too. One `limit 1`
 * read per such relation, all at once; of several that hold it, the first declared is named.
 */
export async function refuseRestricted(app: AppState, model: Model, id: number, removal: boolean): Promise<void> {
  const restricted = onDeleteRelations(model, "restrict");
  if (restricted.length === 0) return;
  // A record that stays restorable (soft delete) is held by live children only; one removed for
  // good by trashed ones too, which a restore or `trashed=true` would show pointing at nothing.
  const scope = (rel: Relation) => removal ? {} : writeScope(app.registry.get(rel.model)!);
  const held = await Promise.all(
    restricted.map((rel) => app.stores.get(rel.model)!.exists(allOf([pointingAt(rel.foreignKey, [id]), scope(rel)]))),
  );
  const holder = restricted[held.indexOf(true)];
  if (holder === undefined) return;
  const key = holder.type === "hasOne" ? "record.restrictedOne" : "record.restricted";
  throw apiError(key, { model: model.name, id, relation: holder.name }, 409);
}

/** Ids the API gives (numbers), against any other kind a record written around it may hold. */
const NUMBER_ID = { $gte: -Infinity };
const OTHER_ID = { $not: NUMBER_ID };

/** The ids of at most `batchSize` of the records matching `filter`, in `_id` order. */
async function batchOf(store: RecordStore, filter: Document, batchSize: number): Promise<number[]> {
  const docs = await store.find({ filter, sort: { _id: 1 }, skip: 0, limit: batchSize, projection: { _id: 1 } });
  return docs.map((doc) => doc._id);
}

/**
 * Calls `visit` with the ids of the records matching `filter`, at most a batch at a time, and
 * `visit` deletes them (returning how many it did); `batchSize` is `limits.cascadeBatchSize`. Numeric ids are walked in `_id` order, each
 * batch read after the previous one was visited, from its last id on. Ids of any other kind,
 * which only a write around the API makes, follow, read afresh until none match, as each batch
 * visited stops matching; one that deleted nothing ends the walk rather than read it again.
 */
async function eachBatch(
  store: RecordStore,
  filter: Document,
  batchSize: number,
  visit: (ids: number[]) => Promise<number>,
): Promise<void> {
  let from: Document = NUMBER_ID;
  for (;;) {
    const ids = await batchOf(store, allOf([filter, { _id: from }]), batchSize);
    if (ids.length > 0) await visit(ids);
    if (ids.length < batchSize) break;
    from = { $gt: ids[ids.length - 1] };
  }
  for (;;) {
    const ids = await batchOf(store, allOf([filter, { _id: OTHER_ID }]), batchSize);
    if (ids.length === 0 || await visit(ids) === 0) return;
  }
}

/**
 * `cascade`: deletes the children of `ids`, a batch at a time, each batch before its own children.
 * They are soft-deleted (with the parent's `deleted_at`) while the parent was soft-deleted and
 * their model is a soft-delete one, and removed otherwise; below a removed record every level is
 * removed, so no trashed child is left pointing at a record that is gone.
 */
async function cascade(app: AppState, rel: Relation, ids: readonly number[], deletedAt?: Date): Promise<void> {
  const child = app.registry.get(rel.model)!;
  const store = app.stores.get(rel.model)!;
  const at = child.softDelete ? deletedAt : undefined;
  // A soft cascade leaves children already trashed alone, with their own deletion time.
  const filter = allOf([pointingAt(rel.foreignKey, ids), at ? LIVE : {}]);
  await eachBatch(store, filter, app.limits.cascadeBatchSize, async (batch) => {
    // Still pointing at the parents: a child moved to another parent since the batch was read stays.
    const these = { _id: { $in: batch }, ...pointingAt(rel.foreignKey, ids) };
    const count = at
      ? await store.updateMany({ ...these, ...LIVE }, { deleted_at: at })
      : await store.removeMany(these);
    const deleted = count === batch.length ? batch : await deletedOf(store, batch, at);
    if (deleted.length > 0) await applyOnDelete(app, child, deleted, at);
    return deleted.length;
  });
}

/**
 * Of `batch`, the ids the cascade's write just deleted (read when it deleted fewer than the
 * batch): trashed at `at`, or gone. A child that moved to another parent (or was trashed by
 * another request) before the write was left alone, and so are the records below it.
 */
async function deletedOf(store: RecordStore, batch: number[], at: Date | undefined): Promise<number[]> {
  if (at) return await batchOf(store, { _id: { $in: batch }, deleted_at: at }, batch.length);
  const left = new Set(await batchOf(store, { _id: { $in: batch } }, batch.length));
  return batch.filter((id) => !left.has(id));
}

/**
 * `setNull`: clears the foreign key of every child of `ids`, trashed ones included (they would
 * otherwise point at a deleted record once restored or read with `trashed=true`), in one command,
 * through the store's update bookkeeping so their ETags and cached reads move.
 */
async function setNull(app: AppState, rel: Relation, ids: readonly number[]): Promise<void> {
  const child = app.registry.get(rel.model)!;
  const field = rel.foreignKey;
  const nullable = clearingOf(child.fields[field]) === "null"; // else "unset": checked at start-up
  await app.stores.get(rel.model)!.updateMany(
    pointingAt(field, ids),
    nullable ? { [field]: null } : {},
    nullable ? [] : [field],
  );
}

/**
 * After a delete's own write succeeded: the `cascade` and `setNull` relations of `model` for the
 * records `ids` (the one a request deleted, or a batch of children further down), in declaration
 * order. `deletedAt` is the soft delete's time, undefined when the records were removed.
 *
 * There are no transactions: every write is its own command, the record first and its children
 * after it, so a failure part way leaves at worst children pointing at a deleted (or trashed)
 * record, as every child did before `onDelete` existed.
 */
export async function applyOnDelete(
  app: AppState,
  model: Model,
  ids: readonly number[],
  deletedAt?: Date,
): Promise<void> {
  for (const rel of model.relations.values()) {
    if (rel.onDelete === "cascade") await cascade(app, rel, ids, deletedAt);
    else if (rel.onDelete === "setNull") await setNull(app, rel, ids);
  }
}
