import { randomUUID } from "node:crypto";
import type { CursorRegistry } from "../cursors.ts";
import type { Catalog } from "../store/catalog.ts";
import type { Namespace } from "../store/write-set.ts";
import { namespace } from "./args.ts";

// MongoDB keeps a cursor across a drop, a rename or an index drop and fails its next getMore,
// when the plan restores, with 175 QueryPlanKilled (RequiresCollectionStage and
// RequiresIndexStage::doRestoreState in the server). The server names the collection's UUID;
// the engine's collections have none, so the message carries a fresh one in its place.

/** The cursors of the collections (not views: they read their own collection) about to go. */
export function collectionsOf(catalog: Catalog, db: string, name?: string): string[] {
  const colls = name === undefined ? catalog.collections(db) : [catalog.get(db, name)].filter((c) => c !== undefined);
  return colls.filter((c) => c.options.viewOn === undefined).map((c) => namespace(c.db, c.name));
}

/** Kills the plans of the cursors reading these dropped collections. */
export function killDropped(cursors: CursorRegistry, namespaces: readonly string[]): void {
  if (!cursors.reading) return;
  for (const ns of namespaces) cursors.killPlans(ns, `collection dropped. UUID ${randomUUID()}`);
}

/** Kills the plans of the cursors reading a collection that was renamed. */
export function killRenamed(cursors: CursorRegistry, from: Namespace, to: Namespace): void {
  if (!cursors.reading) return;
  const source = namespace(from.db, from.name);
  const target = namespace(to.db, to.name);
  cursors.killPlans(source, `collection renamed from '${source}' to '${target}'. UUID ${randomUUID()}`);
}

/** Kills the plans of the cursors reading through these dropped indexes of `ns`. */
export function killIndexReaders(cursors: CursorRegistry, ns: string, indexes: readonly string[]): void {
  if (!cursors.reading) return;
  for (const index of indexes) cursors.killPlans(ns, `query plan killed :: index '${index}' dropped`, index);
}
