import type { Document } from "bson";
import { evalExpr } from "mingo/core";
import { type Iterator as LazyIterator, Lazy } from "mingo/lazy";
import * as mingoPipeline from "mingo/operators/pipeline";
import type { Options, PipelineOperator } from "mingo/types";
import { bsonTag, isPlainObject } from "../bson.ts";
import { keyOf } from "../store/values.ts";
import { collationOf } from "./options-collation.ts";
import { rankedDocuments } from "./sort.ts";
import { counted, windowMemory } from "./memory.ts";

/**
 * `$setWindowFields` with MongoDB's order and partitions. mingo sorted by `sortBy` with its own
 * comparison (a string below a number, a `Long` as an object) and split partitions by its own
 * equality (`Long(1)` apart from `1`), so ranks, running totals and `$documentNumber` caps
 * (what the framework's relation loader uses) could follow the wrong order. Here the engine
 * sorts the documents in its BSON order under the collation and numbers them by dense rank,
 * partitions get the engine's value key, and mingo computes the windows over those two hidden
 * fields, which are dropped from the output. Windows that read the sort field's values (a
 * `range` window, `$derivative`, `$integral`, `$linearFill`) are left wholly to mingo.
 */

type Stage = (collection: LazyIterator, expr: unknown, options: Options) => LazyIterator;

const mingoSetWindowFields = (mingoPipeline as unknown as Record<string, Stage>).$setWindowFields;

const RANK = "__mongorestWindowRank";
const PARTITION = "__mongorestWindowPartition";
const READS_SORT_VALUES = new Set(["$derivative", "$integral", "$linearFill"]);

/** Whether an output reads the sort field's values rather than only the documents' order. */
function readsSortValues(output: unknown): boolean {
  if (!isPlainObject(output)) return false;
  return Object.values(output).some((field) =>
    isPlainObject(field) &&
    (Object.keys(field).some((op) => READS_SORT_VALUES.has(op)) ||
      (isPlainObject(field.window) && field.window.range !== undefined))
  );
}

/** A value mingo orders and groups as MongoDB does when the others compared with it are of its kind. */
function plainKind(value: unknown): string | undefined {
  if (typeof value === "number") return value === value ? "number" : undefined;
  if (typeof value === "string") return SURROGATES_OR_ABOVE.test(value) ? undefined : "string";
  if (value instanceof Date) return "date";
  return bsonTag(value) === "ObjectId" ? "objectId" : undefined;
}
// JavaScript's code-unit order parts from code point order from U+D800 up (see store/strings.ts).
const SURROGATES_OR_ABOVE = /[\uD800-\uFFFF]/;

/**
 * Whether mingo's own sort and partitions agree with MongoDB's for these documents: no
 * collation, every sort field a top-level one holding values of one plain kind (numbers, or
 * strings below U+D800, dates, ObjectIds), and a top-level partition field holding plain values.
 * The relation loader's windows (by `_id` within a foreign key) are of this shape, and skip the
 * copies the general path makes.
 */
function mingoAgrees(docs: Document[], sortBy: unknown, partitionBy: unknown, options: Options): boolean {
  if (collationOf(options) !== undefined) return false;
  const fields = isPlainObject(sortBy) ? Object.keys(sortBy) : [];
  if (fields.some((field) => field.includes("."))) return false;
  const partition = typeof partitionBy === "string" && /^\$[^.$]+$/.test(partitionBy)
    ? partitionBy.slice(1)
    : undefined;
  if (partitionBy !== undefined && partition === undefined) return false;
  const kinds = fields.map((field) => docs.length > 0 ? plainKind(docs[0][field]) : undefined);
  return docs.every((doc) =>
    fields.every((field, i) => kinds[i] !== undefined && plainKind(doc[field]) === kinds[i]) &&
    (partition === undefined || plainKind(doc[partition]) !== undefined)
  );
}

const $setWindowFields: Stage = (input, expr, options) => {
  // The stage holds every document until it has them all: they are what its memory counts.
  const collection = counted(input, windowMemory());
  if (!isPlainObject(expr) || readsSortValues(expr.output)) return mingoSetWindowFields(collection, expr, options);
  const { sortBy, partitionBy } = expr;
  const all = collection.collect<Document>();
  if (mingoAgrees(all, sortBy, partitionBy, options)) return mingoSetWindowFields(Lazy(all), expr, options);
  const keyed = (doc: Document, rank: number): Document => ({
    ...doc,
    [RANK]: rank,
    [PARTITION]: partitionBy === undefined ? null : keyOf(evalExpr(doc, partitionBy, options)),
  });
  const hidden = Lazy(
    isPlainObject(sortBy)
      ? rankedDocuments(all, sortBy, collationOf(options)).map(({ doc, rank }) => keyed(doc, rank))
      : all.map((doc) => keyed(doc, 0)),
  );
  const windows = {
    ...expr,
    ...(isPlainObject(sortBy) ? { sortBy: { [RANK]: 1 } } : {}),
    partitionBy: `$${PARTITION}`,
  };
  const outputs = isPlainObject(expr.output) ? Object.keys(expr.output) : [];
  return mingoSetWindowFields(hidden, windows, options).map((doc) => {
    const { [RANK]: _rank, [PARTITION]: _partition, ...rest } = doc as Document;
    for (const field of outputs) withoutHelpers(rest[field]);
    return rest;
  });
};

/**
 * Removes the helper fields from the copies of input documents a window output holds (`$push:
 * "$$ROOT"`, `$shift` of `$$CURRENT`, `$mergeObjects` of them), at any depth. Those copies are
 * the engine's own (or mingo's), never stored documents.
 */
function withoutHelpers(value: unknown): void {
  if (Array.isArray(value)) {
    for (const element of value) withoutHelpers(element);
  } else if (isPlainObject(value)) {
    if (Object.hasOwn(value, RANK)) {
      delete value[RANK];
      delete value[PARTITION];
    }
    for (const field in value) withoutHelpers(value[field]);
  }
}

/** The stage, to register in mingo's context over its own. */
export const windowStages: Record<string, PipelineOperator> = {
  $setWindowFields: $setWindowFields as unknown as PipelineOperator,
};
