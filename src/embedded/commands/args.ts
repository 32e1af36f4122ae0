import { type Document, Long } from "bson";
import { bsonTag, isPlainObject, toNumber } from "../bson.ts";
import { DEFAULT_FIRST_BATCH } from "../cursors.ts";
import { CommandError } from "../errors.ts";
import type { CommandContext } from "./context.ts";
import { checkCollectionName } from "./names.ts";

/** The collection a command targets (the value of its first field), a name MongoDB accepts. */
export function collectionName(ctx: CommandContext, name: string): string {
  const value = ctx.body[name];
  if (typeof value !== "string" || value === "") {
    throw new CommandError("InvalidNamespace", `collection name has invalid type ${typeof value}`);
  }
  checkCollectionName(ctx.db, value);
  return value;
}

/** An optional numeric argument (int32, int64 or double on the wire). */
export function optionalNumber(body: Document, field: string): number | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (Number.isNaN(n)) throw new CommandError("TypeMismatch", `'${field}' must be a number`);
  return n;
}

/** An optional non-negative integer argument. */
export function optionalCount(body: Document, field: string): number | undefined {
  const n = optionalNumber(body, field);
  if (n !== undefined && (n < 0 || !Number.isInteger(n))) {
    throw new CommandError("BadValue", `'${field}' must be a non-negative integer`);
  }
  return n;
}

/**
 * Size of a cursor's first batch: `batchSize` of `options` (find's body, or the `cursor`
 * document of aggregate and the list commands; absent means the server default).
 */
export function firstBatchSize(options: unknown): number {
  return (isPlainObject(options) ? optionalCount(options, "batchSize") : undefined) ?? DEFAULT_FIRST_BATCH;
}

/** An optional sub-document argument. */
export function optionalDocument(body: Document, field: string): Document | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new CommandError("TypeMismatch", `'${field}' must be an object`);
  return value;
}

/** Statements one write command may carry, as hello's maxWriteBatchSize says. */
export const MAX_WRITE_BATCH = 100_000;

/** The statements of a write: the kind-1 sequence if sent that way, else the body's array (1 to 100,000 of them). */
export function statements(ctx: CommandContext, field: string): Document[] {
  const fromSequence = ctx.request.sequences.get(field);
  const value = fromSequence ?? ctx.body[field];
  if (!Array.isArray(value)) throw new CommandError("FailedToParse", `'${field}' must be an array`);
  if (value.length < 1 || value.length > MAX_WRITE_BATCH) {
    throw new CommandError(
      "InvalidLength",
      `Write batch sizes must be between 1 and ${MAX_WRITE_BATCH}. Got ${value.length} operations.`,
    );
  }
  for (const item of value) {
    if (!isPlainObject(item)) throw new CommandError("TypeMismatch", `each entry of '${field}' must be an object`);
  }
  return value as Document[];
}

/** A cursor id argument as a Long. */
export function cursorId(value: unknown): Long {
  if (bsonTag(value) === "Long") return value as Long;
  if (typeof value === "number" && Number.isInteger(value)) return Long.fromNumber(value);
  throw new CommandError("TypeMismatch", "cursor id must be an integer");
}

/** "db.coll". */
export function namespace(db: string, coll: string): string {
  return `${db}.${coll}`;
}
