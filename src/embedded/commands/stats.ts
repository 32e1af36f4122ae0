import { BSON, type Document, Double, Long } from "bson";
import { statfsSync } from "node:fs";
import { firstKey, toNumber, trueValue } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { bsonTypeOf, isBsonNumber } from "../query/bson-types.ts";
import type { Catalog } from "../store/catalog.ts";
import type { Collection } from "../store/collection.ts";
import { namespace } from "./args.ts";
import type { CommandContext, Handler } from "./context.ts";

// Storage statistics of the engine's collections, as dbStats, collStats and $collStats report
// them. The engine holds documents as BSON in memory chunks (see DocTable), so "storage" is
// those chunks: `size` is the documents' BSON bytes, `storageSize` the chunks' bytes, and
// `freeStorageSize` what the chunks hold of neither. Index sizes are estimates of the memory
// their entries take (see indexBytes).

/** Types a scale may have, named as MongoDB's IDL names them in its errors. */
const SCALE_TYPES = "'[long, int, decimal, double']";

/** A scale argument's value truncated to an integer (NaN: 0); undefined when absent (or null). */
function scaleArgument(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isBsonNumber(value)) {
    throw new CommandError(
      "TypeMismatch",
      `BSON field '${field}' is the wrong type '${bsonTypeOf(value)}', expected types ${SCALE_TYPES}`,
    );
  }
  const n = toNumber(value);
  return Number.isNaN(n) ? 0 : Math.trunc(n);
}

/** dbStats' `freeStorage`: a bool, or a number read as one (MongoDB's safeBool); null means false. */
function freeStorageArgument(value: unknown): boolean {
  if (value !== undefined && value !== null && typeof value !== "boolean" && !isBsonNumber(value)) {
    throw new CommandError(
      "TypeMismatch",
      `BSON field 'dbStats.freeStorage' is the wrong type '${
        bsonTypeOf(value)
      }', expected types '[bool, long, int, decimal, double']`,
    );
  }
  return trueValue(value);
}

/** `collStats`' and `$collStats`' scale: an int32 of at least 1 (MongoDB 7.0 clamps larger ones to int32). */
export function storageScale(value: unknown, field: string): number {
  const n = scaleArgument(value, field);
  if (n === undefined) return 1;
  const clamped = Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, n));
  if (clamped < 1) {
    throw new CommandError("Location51024", `BSON field 'scale' value must be >= 1, actual value '${clamped}'`);
  }
  return clamped;
}

/** The options of storage statistics that must be booleans when given (MongoDB's optionalBool). */
const FLAGS = ["verbose", "waitForLock", "numericOnly"];

/** Checks a storage statistics request's flags; returns the request. */
export function checkFlags(request: Document): Document {
  for (const flag of FLAGS) {
    const value = request[flag];
    if (value !== undefined && typeof value !== "boolean") {
      throw new CommandError(
        "TypeMismatch",
        `Field '${flag}' should be a boolean value, but found: ${bsonTypeOf(value)}`,
      );
    }
  }
  return request;
}

/** A count or size as MongoDB appends it: int32 when it fits, int64 otherwise. */
function sized(n: number): number | Long {
  return n <= 2 ** 31 - 1 ? n : Long.fromNumber(n);
}

/** Bytes an index's entries take, estimated: a document number each, and each key held in memory. */
function indexBytes(coll: Collection, name: string): number {
  if (name === "_id_") return 4 * coll.docs.size;
  for (const index of coll.orderedIndexes()) {
    if (index.spec.name !== name) continue;
    const { entries } = index;
    return entries.size * (4 + (entries.holdsKeys ? 8 * entries.width : 0));
  }
  return 0;
}

/** The byte counts of one collection that the statistics scale. */
interface CollectionBytes {
  count: number;
  data: number;
  storage: number;
  free: number;
  indexes: Map<string, number>;
  indexTotal: number;
}

function bytesOf(coll: Collection): CollectionBytes {
  const count = coll.docs.size;
  const indexes = new Map(coll.allIndexes().map((spec) => [spec.name, indexBytes(coll, spec.name)]));
  let indexTotal = 0;
  for (const bytes of indexes.values()) indexTotal += bytes;
  const { table } = coll.docs;
  return { count, data: table.dataBytes(count), storage: table.chunkBytes, free: table.freeBytes, indexes, indexTotal };
}

/**
 * A collection's storage statistics, in MongoDB's order (without its engine-specific
 * `wiredTiger` section and per-index details); all zero for a collection that does not exist.
 */
export function storageStats(coll: Collection | undefined, scale: number): Document {
  if (coll === undefined) {
    return {
      size: 0,
      count: 0,
      numOrphanDocs: 0,
      storageSize: 0,
      totalSize: 0,
      nindexes: 0,
      totalIndexSize: 0,
      indexDetails: {},
      indexSizes: {},
      scaleFactor: scale,
    };
  }
  const bytes = bytesOf(coll);
  const scaled = (n: number) => sized(Math.floor(n / scale));
  const out: Document = { size: scaled(bytes.data), count: sized(bytes.count) };
  if (bytes.count > 0) out.avgObjSize = sized(Math.floor(bytes.data / bytes.count));
  Object.assign(out, {
    numOrphanDocs: 0,
    storageSize: scaled(bytes.storage),
    freeStorageSize: scaled(bytes.free),
    capped: false,
    nindexes: bytes.indexes.size,
    indexDetails: Object.fromEntries([...bytes.indexes.keys()].map((name) => [name, {}])),
    indexBuilds: [],
    totalIndexSize: scaled(bytes.indexTotal),
    indexSizes: Object.fromEntries([...bytes.indexes].map(([name, n]) => [name, scaled(n)])),
    totalSize: scaled(bytes.storage + bytes.indexTotal),
    scaleFactor: scale,
  });
  return out;
}

/** The deprecated collStats command: `$collStats: {storageStats}`'s figures under the namespace. */
function collStats(ctx: CommandContext): Document {
  const name = ctx.body[firstKey(ctx.body) ?? ""]; // collStats, or its alias collstats
  if (typeof name !== "string" || name === "") {
    throw new CommandError("InvalidNamespace", `collection name has invalid type ${bsonTypeOf(name)}`);
  }
  const scale = storageScale(checkFlags(ctx.body).scale, "collStats.scale");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  if (coll?.options.viewOn !== undefined) {
    throw new CommandError(
      "CommandNotSupportedOnView",
      `Namespace ${namespace(ctx.db, name)} is a view, not a collection`,
    );
  }
  return { ns: namespace(ctx.db, name), ...storageStats(coll, scale), ok: 1 };
}

/** The filesystem holding `dir`: used and total bytes, or -1 each when it cannot be read (as MongoDB reports). */
function filesystem(dir: string): { used: number; total: number } {
  try {
    const fs = statfsSync(dir);
    return { used: (fs.blocks - fs.bavail) * fs.bsize, total: fs.blocks * fs.bsize };
  } catch {
    return { used: -1, total: -1 };
  }
}

/** A database's totals over its collections; views count as the documents of one `system.views` collection. */
function databaseTotals(catalog: Catalog, db: string) {
  const totals = { collections: 0, views: 0, objects: 0, data: 0, storage: 0, free: 0, indexes: 0, indexSize: 0 };
  for (const coll of catalog.collections(db)) {
    if (coll.options.viewOn !== undefined) {
      const view = {
        _id: namespace(db, coll.name),
        viewOn: coll.options.viewOn,
        pipeline: coll.options.pipeline ?? [],
      };
      totals.views++;
      totals.objects++;
      totals.data += BSON.calculateObjectSize(view);
      continue;
    }
    const bytes = bytesOf(coll);
    totals.collections++;
    totals.objects += bytes.count;
    totals.data += bytes.data;
    totals.storage += bytes.storage;
    totals.free += bytes.free;
    totals.indexes += bytes.indexes.size;
    totals.indexSize += bytes.indexTotal;
  }
  if (totals.views > 0) {
    // The view definitions live in system.views, a collection with an _id index of its own in MongoDB.
    totals.collections++;
    totals.indexes++;
    totals.indexSize += 4 * totals.views;
  }
  return totals;
}

/** What database `db` takes: its collections' storage and index bytes (listDatabases' `sizeOnDisk`). */
export function databaseBytes(catalog: Catalog, db: string): number {
  const { storage, indexSize } = databaseTotals(catalog, db);
  return storage + indexSize;
}

/** dbStats: counts as int64, sizes as doubles divided by the scale, as MongoDB 7.0 reports them. */
function dbStats(ctx: CommandContext): Document {
  // MongoDB reads the scale as an int64, clamping larger values to its range.
  const scale = Math.min(scaleArgument(ctx.body.scale, "dbStats.scale") ?? 1, 2 ** 63 - 1);
  if (scale <= 0) throw new CommandError("BadValue", "Scale factor must be greater than zero");
  const freeStorage = freeStorageArgument(ctx.body.freeStorage);
  const t = databaseTotals(ctx.engine.catalog, ctx.db);
  const size = (n: number) => new Double(n / scale);
  const out: Document = {
    db: ctx.db,
    collections: Long.fromNumber(t.collections),
    views: Long.fromNumber(t.views),
    objects: Long.fromNumber(t.objects),
    avgObjSize: new Double(t.objects > 0 ? t.data / t.objects : 0),
    dataSize: size(t.data),
    storageSize: size(t.storage),
    indexes: Long.fromNumber(t.indexes),
    indexSize: size(t.indexSize),
    totalSize: size(t.storage + t.indexSize),
  };
  if (freeStorage) {
    Object.assign(out, {
      freeStorageSize: size(t.free),
      indexFreeStorageSize: size(0),
      totalFreeStorageSize: size(t.free),
    });
  }
  out.scaleFactor = Long.fromNumber(scale);
  // An engine in memory has no filesystem to report, as MongoDB's in-memory engine has none.
  const { dataDir } = ctx.engine.server;
  if (dataDir !== undefined) {
    // A database that does not exist reports zeros here too, as MongoDB does.
    const fs = t.collections > 0 ? filesystem(dataDir) : { used: 0, total: 0 };
    out.fsUsedSize = new Double(fs.used < 0 ? -1 : fs.used / scale);
    out.fsTotalSize = new Double(fs.total < 0 ? -1 : fs.total / scale);
  }
  out.ok = 1;
  return out;
}

/** Storage statistics of databases and collections. */
export const statsCommands: Record<string, Handler> = { dbStats, dbstats: dbStats, collStats, collstats: collStats };
