import type { ApiRecord } from "../model/serialize.ts";
import { toRecord } from "../model/serialize.ts";
import type { WithNode } from "../query/with.ts";
import type { LoadedRelation } from "../store/relations.ts";
import type { Document } from "bson";

/** One level's records: each related document made a record once (a shared owner is one object), its own levels attached. */
function recordsOf(level: LoadedRelation<WithNode>): Map<Document, ApiRecord> {
  const node = level.read.source;
  const records = level.docs.map((doc) => toRecord(node.model, doc, node.fields));
  attachRelations(records, level.children);
  return new Map(level.docs.map((doc, i) => [doc, records[i]]));
}

/**
 * Attaches loaded relation levels (store/relations.ts) to the parents' records, in the order of
 * `with`, so the output's key order does not depend on which query answered first. Sets
 * `records[i][relation]` to an array (hasMany: the first `maxChildrenPerParent`, or the
 * relation's smaller `limit`, children in the relation's `sort`, else id order) or to an
 * object or null (hasOne, belongsTo).
 * @example attachRelations(records, await data.loadRelations(docs, relationReads(parseWith("posts{comments}", …)), …))
 * // records[0].posts → [{ id, title, …, comments: [{ … }] }]
 */
export function attachRelations(records: ApiRecord[], loaded: readonly LoadedRelation<WithNode>[]): void {
  const built = loaded.map(recordsOf);
  loaded.forEach((level, n) => {
    const { name, type } = level.read;
    records.forEach((record, i) => {
      const attached = level.perParent[i].map((doc) => built[n].get(doc)!);
      record[name] = type === "hasMany" ? attached : (attached[0] ?? null);
    });
  });
}
