import { BSON, type Document, ObjectId } from "bson";
import { CommandError, errorReply } from "../errors.ts";
import { compileFilter } from "../query/filter.ts";
import { collect, runRead } from "../query/plan.ts";
import { atInterruptPoint, checkForInterrupt, isInterruption } from "../query/interrupts.ts";
import { firstKey, isPlainObject, SERIALIZE, toNumber } from "../bson.ts";
import type { Collation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import type { WriteSet } from "../store/write-set.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import { collectionName, statements } from "./args.ts";
import { operationCollation } from "./collation.ts";
import { checkHint } from "./hint.ts";
import { checkStatementFields } from "./fields.ts";
import { type CommandContext, commit, type Handler, startWrites } from "./context.ts";
import { duplicateWriteError } from "./duplicate.ts";
import { checkStorable } from "./storable.ts";
import { bypassValidation, checkValid } from "./validation.ts";

/** A write error entry for a statement that failed with something other than a duplicate. */
export function statementError(index: number, error: unknown): Document {
  const { code, errmsg, errInfo } = errorReply(error);
  return errInfo === undefined ? { index, code, errmsg } : { index, code, errmsg, errInfo };
}

/** The reply of a write command: MongoDB reports per-statement failures with ok: 1. */
export function writeReply(fields: Document, writeErrors: Document[]): Document {
  return writeErrors.length ? { ...fields, writeErrors, ok: 1 } : { ...fields, ok: 1 };
}

/** Prepares a document for storage: `_id` generated if missing, and always the first field. */
export function prepareInsert(doc: Document): Document {
  if (firstKey(doc) === "_id") return checkId(doc);
  const { _id, ...rest } = doc;
  return checkId({ _id: _id === undefined ? new ObjectId() : _id, ...rest });
}

function checkId(doc: Document): Document {
  if (Array.isArray(doc._id)) throw new CommandError("BadValue", "can't use an array for _id");
  if (doc._id instanceof RegExp) throw new CommandError("BadValue", "can't use a regex for _id");
  refuseDollarFields(doc._id);
  return doc;
}

/** MongoDB stores `$`-prefixed field names anywhere but in `_id` (it would read as an operator). */
function refuseDollarFields(value: unknown): void {
  if (!isPlainObject(value)) return;
  for (const [field, inner] of Object.entries(value)) {
    if (field.startsWith("$")) {
      throw new CommandError(
        "DollarPrefixedFieldName",
        `_id fields may not contain '$'-prefixed fields: ${field} is not valid for storage.`,
      );
    }
    refuseDollarFields(inner);
  }
}

function checkSize(ctx: CommandContext, docs: Document[]): void {
  const max = ctx.engine.limits.maxBsonObjectSize;
  const fromBody = !ctx.request.sequences.has("documents");
  const oversize = ctx.request.tooLarge !== undefined ||
    (fromBody && docs.some((d) => BSON.calculateObjectSize(d, SERIALIZE) > max));
  if (oversize) throw new CommandError("BSONObjectTooLarge", `object to insert too large. max size: ${max}`);
}

async function insert(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "insert");
  const docs = statements(ctx, "documents");
  checkSize(ctx, docs);
  const ordered = ctx.body.ordered !== false;
  const writes = startWrites(ctx);
  const coll = writes.ensure(ctx.db, name);
  const bypass = bypassValidation(ctx.body);
  const writeErrors: Document[] = [];
  let n = 0;
  let interrupted: unknown;
  for (let i = 0; i < docs.length; i++) {
    if (atInterruptPoint(i + 1)) interrupted = interruption();
    if (interrupted !== undefined) break;
    const error = insertOne(writes, coll, docs[i], i, bypass);
    if (error === undefined) n++;
    else {
      writeErrors.push(error);
      if (ordered) break;
    }
  }
  await commit(ctx, writes);
  if (interrupted !== undefined) throw interrupted;
  return writeReply({ n }, writeErrors);
}

function insertOne(
  writes: WriteSet,
  coll: Collection,
  raw: Document,
  index: number,
  bypass: boolean,
): Document | undefined {
  try {
    const doc = prepareInsert(raw);
    checkStorable(doc, "insert");
    checkValid(coll, doc, undefined, bypass);
    const dup = coll.findDuplicate(doc, true);
    if (dup) return duplicateWriteError(index, coll.db, coll.name, dup);
    writes.put(coll, doc);
    return undefined;
  } catch (error) {
    return statementError(index, error);
  }
}

async function deleteCommand(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "delete");
  const deletes = statements(ctx, "deletes");
  for (const statement of deletes) checkStatementFields("delete.deletes", statement);
  const ordered = ctx.body.ordered !== false;
  const coll = ctx.engine.catalog.get(ctx.db, name);
  const variables = parseLet(ctx.body);
  const writes = startWrites(ctx);
  const writeErrors: Document[] = [];
  let n = 0;
  let interrupted: unknown;
  for (let i = 0; i < deletes.length; i++) {
    try {
      const q = bindFilter(deletes[i].q, variables);
      checkHint(coll, deletes[i].hint);
      const collation = operationCollation(deletes[i].collation, coll);
      n += coll ? deleteMatching(writes, coll, q, collation, deletes[i]) : (compileFilter(q, collation), 0);
    } catch (error) {
      // Past its time limit the command fails as a whole, as MongoDB's does; what it wrote stays.
      if (isInterruption(error)) {
        interrupted = error;
        break;
      }
      writeErrors.push(statementError(i, error));
      if (ordered) break;
    }
  }
  await commit(ctx, writes);
  if (interrupted !== undefined) throw interrupted;
  return writeReply({ n }, writeErrors);
}

/** The interruption of the running operation (past its deadline), if any: a write checks between documents. */
function interruption(): unknown {
  try {
    checkForInterrupt();
    return undefined;
  } catch (error) {
    return error;
  }
}

function deleteMatching(
  writes: WriteSet,
  coll: Collection,
  filter: unknown,
  collation: Collation | undefined,
  statement: Document,
): number {
  const limit = toNumber(statement.limit ?? 0);
  if (limit !== 0 && limit !== 1) throw new CommandError("FailedToParse", "delete limit must be 0 or 1");
  const victims = collect(runRead(coll, { filter, limit, collation, hint: statement.hint ?? undefined }));
  for (const doc of victims) writes.delete(coll, doc._id);
  return victims.length;
}

/** insert and delete. */
export const writeCommands: Record<string, Handler> = { insert, delete: deleteCommand };
