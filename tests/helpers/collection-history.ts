import type { Document } from "bson";
import type { Change, IndexSpec } from "../../src/embedded/changes.ts";

/** The changes that make collection `db.coll`: created, given the indexes `specs`, filled with `docs`. */
export function collectionHistory(
  db: string,
  coll: string,
  specs: readonly IndexSpec[],
  docs: readonly Document[],
): Change[] {
  return [
    { op: "createCollection", db, coll },
    ...specs.map((spec): Change => ({ op: "createIndex", db, coll, spec })),
    ...docs.map((doc): Change => ({ op: "put", db, coll, doc })),
  ];
}
