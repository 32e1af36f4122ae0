import type { Document } from "bson";
import { bsonTag } from "../bson.ts";
import { CommandError } from "../errors.ts";

/** The fields a read concern may have. */
const FIELDS = new Set(["level", "afterOpTime", "afterClusterTime", "atClusterTime", "provenance"]);

/** The read concern levels MongoDB knows. */
const LEVELS = new Set(["local", "majority", "linearizable", "available", "snapshot"]);

/**
 * Checks a command's `readConcern` as a standalone mongod does. The engine is a standalone, so the
 * levels and options that need a replica set's history are refused instead of being ignored: a
 * `snapshot` read that silently read the latest data would pass in development and mean
 * something else in production.
 */
export function checkReadConcern(body: Document): void {
  const concern = body.readConcern;
  if (concern === undefined) return;
  if (concern === null || typeof concern !== "object" || Array.isArray(concern)) {
    throw new CommandError("TypeMismatch", "BSON field 'readConcern' is the wrong type, expected type 'object'");
  }
  for (const field in concern) {
    if (!FIELDS.has(field)) throw new CommandError("InvalidOptions", `Unrecognized option in readConcern: ${field}`);
  }
  const level = concern.level ?? "local";
  if (typeof level !== "string") {
    throw new CommandError("TypeMismatch", "BSON field 'readConcern.level' is the wrong type, expected type 'string'");
  }
  if (!LEVELS.has(level)) {
    throw new CommandError(
      "FailedToParse",
      `readConcern.level must be either 'local', 'majority', 'linearizable', 'available', or 'snapshot', not '${level}'`,
    );
  }
  if (concern.afterClusterTime !== undefined && bsonTag(concern.afterClusterTime) !== "Timestamp") {
    throw new CommandError("TypeMismatch", "readConcern.afterClusterTime must be a Timestamp");
  }
  if (concern.afterClusterTime !== undefined && (level === "linearizable" || level === "available")) {
    throw new CommandError("InvalidOptions", `readConcern.afterClusterTime is not allowed with level '${level}'`);
  }
  if (concern.atClusterTime !== undefined && level !== "snapshot") {
    throw new CommandError("InvalidOptions", "readConcern.atClusterTime is only valid with level 'snapshot'");
  }
  if (level === "snapshot" || level === "linearizable" || concern.afterOpTime !== undefined) {
    throw new CommandError("NotAReplicaSet", `node needs to be a replica set member to use readConcern: ${level}`);
  }
  if (concern.afterClusterTime !== undefined) {
    throw new CommandError(
      "IllegalOperation",
      "Cannot specify afterClusterTime readConcern without replication enabled",
    );
  }
}
