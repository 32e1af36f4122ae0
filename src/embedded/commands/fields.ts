import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { missingField, wrongType } from "../field-errors.ts";

/**
 * Fields every command may carry (MongoDB's generic arguments): routing, sessions,
 * transactions, concerns, API versioning, diagnostics. Those the engine has no use for are
 * accepted and ignored, as a standalone server does with most of them.
 */
const GENERIC = [
  "$db",
  "lsid",
  "txnNumber",
  "autocommit",
  "startTransaction",
  "stmtId",
  "$clusterTime",
  "$readPreference",
  "readConcern",
  "writeConcern",
  "comment",
  "maxTimeMS",
  "apiVersion",
  "apiStrict",
  "apiDeprecationErrors",
  "$audit",
  "$client",
  "mayBypassWriteBlocking",
  "$configServerState",
  "$gleStats",
  "$oplogQueryData",
  "$replData",
  "$topologyTime",
  "$configTime",
  "clientOperationKey",
  "databaseVersion",
  "shardVersion",
  "versionContext",
  "$queryOptions",
  "readPreference",
];

/**
 * The fields each command accepts besides the generic ones, as in MongoDB 7.0's command
 * definitions (including options the engine accepts but does not act on, such as
 * `allowDiskUse`). Commands not listed here are not checked.
 */
const COMMAND_FIELDS: Record<string, string[]> = {
  find: [
    "filter",
    "projection",
    "sort",
    "hint",
    "skip",
    "limit",
    "batchSize",
    "singleBatch",
    "let",
    "min",
    "max",
    "returnKey",
    "showRecordId",
    "tailable",
    "oplogReplay",
    "noCursorTimeout",
    "awaitData",
    "allowPartialResults",
    "collation",
    "allowDiskUse",
    "readOnce",
    "allowSpeculativeMajorityRead",
    "requestResumeToken",
    "resumeAfter",
    "ntoreturn",
    "term",
  ],
  getMore: ["collection", "batchSize", "term", "lastKnownCommittedOpTime", "includeQueryStatsMetrics"],
  killCursors: ["cursors"],
  count: ["query", "limit", "skip", "hint", "collation", "fields", "sampleSize", "shardVersion"],
  distinct: ["key", "query", "collation", "hint", "sampleSize"],
  aggregate: [
    "pipeline",
    "explain",
    "allowDiskUse",
    "cursor",
    "bypassDocumentValidation",
    "collation",
    "hint",
    "let",
    "needsMerge",
    "fromMongos",
    "fromRouter",
    "exchange",
    "isMapReduceCommand",
    "collectionUUID",
    "passthroughToShard",
    "encryptionInformation",
    "includeQueryStatsMetrics",
  ],
  insert: ["documents", "ordered", "bypassDocumentValidation", "collectionUUID", "encryptionInformation"],
  update: ["updates", "ordered", "bypassDocumentValidation", "let", "collectionUUID", "encryptionInformation"],
  delete: ["deletes", "ordered", "let", "collectionUUID", "encryptionInformation"],
  findAndModify: [
    "query",
    "fields",
    "sort",
    "remove",
    "update",
    "new",
    "upsert",
    "bypassDocumentValidation",
    "collation",
    "arrayFilters",
    "hint",
    "let",
    "collectionUUID",
    "encryptionInformation",
  ],
  create: [
    "capped",
    "size",
    "max",
    "autoIndexId",
    "idIndex",
    "storageEngine",
    "validator",
    "validationLevel",
    "validationAction",
    "indexOptionDefaults",
    "viewOn",
    "pipeline",
    "collation",
    "timeseries",
    "clusteredIndex",
    "changeStreamPreAndPostImages",
    "expireAfterSeconds",
    "encryptedFields",
    "flags",
    "temp",
  ],
  collMod: [
    "validator",
    "validationLevel",
    "validationAction",
    "viewOn",
    "pipeline",
    "index",
    "changeStreamPreAndPostImages",
    "expireAfterSeconds",
    "timeseries",
    "cappedSize",
    "cappedMax",
    "dryRun",
    "collectionUUID",
  ],
  drop: ["collectionUUID"],
  renameCollection: ["to", "dropTarget", "stayTemp", "collectionUUID"],
  dropDatabase: [],
  createIndexes: ["indexes", "commitQuorum", "ignoreUnknownIndexOptions", "isTimeseriesNamespace", "collectionUUID"],
  listIndexes: ["cursor", "includeBuildUUIDs", "includeIndexBuildInfo", "isTimeseriesNamespace", "collectionUUID"],
  dropIndexes: ["index", "isTimeseriesNamespace", "collectionUUID"],
  listCollections: ["filter", "cursor", "nameOnly", "authorizedCollections", "includePendingDrops"],
  listDatabases: ["filter", "nameOnly", "authorizedDatabases"],
  explain: ["verbosity"],
  dbStats: ["scale", "freeStorage"],
  dbstats: ["scale", "freeStorage"],
};
COMMAND_FIELDS.findandmodify = COMMAND_FIELDS.findAndModify;
COMMAND_FIELDS.deleteIndexes = COMMAND_FIELDS.dropIndexes;

/** The fields of each write statement (7.0 has no `sort` on an update statement: 8.0 added it). */
const STATEMENT_FIELDS: Record<string, Set<string>> = {
  "update.updates": new Set([
    "q",
    "u",
    "c",
    "arrayFilters",
    "multi",
    "upsert",
    "upsertSupplied",
    "collation",
    "hint",
    "sampleId",
  ]),
  "delete.deletes": new Set(["q", "limit", "collation", "hint", "sampleId"]),
};

const ALLOWED = new Map(
  Object.entries(COMMAND_FIELDS).map(([name, fields]) => [name, new Set([name, ...GENERIC, ...fields])]),
);

function unknownField(path: string): CommandError {
  return new CommandError("Location40415", `BSON field '${path}' is an unknown field.`);
}

/** Refuses a field that command `name` does not define, with MongoDB's code 40415, as a server does. */
export function checkCommandFields(name: string, body: Document): void {
  const allowed = ALLOWED.get(name);
  if (!allowed) return;
  for (const field of Object.keys(body)) if (!allowed.has(field)) throw unknownField(`${name}.${field}`);
}

/** The fields a write statement must have: a filter, and what to do with its matches. */
const REQUIRED_FIELDS = { "update.updates": ["q", "u"], "delete.deletes": ["q", "limit"] } as const;

/**
 * Refuses a write statement (`update.updates`, `delete.deletes`) with a field it does not
 * define, or without one it needs, or whose filter is not a document, as MongoDB's command
 * parser does before any statement runs: a missing `q` must never read as "every document".
 */
export function checkStatementFields(path: "update.updates" | "delete.deletes", statement: Document): void {
  const allowed = STATEMENT_FIELDS[path];
  for (const field of Object.keys(statement)) if (!allowed.has(field)) throw unknownField(`${path}.${field}`);
  for (const field of REQUIRED_FIELDS[path]) {
    if (statement[field] === undefined) {
      throw missingField(`${path}.${field}`);
    }
  }
  if (!isPlainObject(statement.q)) throw wrongType(`${path}.q`, statement.q, "object");
}
