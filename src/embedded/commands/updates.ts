import { checkArrayFilters } from "../query/array-filter-checks.ts";
import type { Document } from "bson";
import { CommandError } from "../errors.ts";
import { compileFilter } from "../query/filter.ts";
import { collect, runRead } from "../query/plan.ts";
import { atInterruptPoint, checkForInterrupt, isInterruption } from "../query/interrupts.ts";
import { applyUpdate, isOperatorUpdate, type UpdateSpec, upsertDocument } from "../query/update.ts";
import type { Collection } from "../store/collection.ts";
import type { WriteSet } from "../store/write-set.ts";
import { isPlainObject } from "../bson.ts";
import { bindFilter, parseLet, type Variables } from "../query/variables.ts";
import { collectionName, statements } from "./args.ts";
import { checkHint } from "./hint.ts";
import { checkStatementFields } from "./fields.ts";
import { type CommandContext, commit, type Handler, startWrites } from "./context.ts";
import { duplicateError } from "./duplicate.ts";
import { operationCollation } from "./collation.ts";
import { checkStorable } from "./storable.ts";
import { bypassValidation, checkValid } from "./validation.ts";
import { prepareInsert, statementError, writeReply } from "./write.ts";

/** Outcome of one update statement. */
interface Outcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
}

function parseStatement(
  s: Document,
  variables: Variables | undefined,
): { q: Document; u: UpdateSpec; multi: boolean; upsert: boolean; arrayFilters?: Document[] } {
  const q = bindFilter(s.q, variables);
  const u = s.u;
  if (!isPlainObject(q)) throw new CommandError("TypeMismatch", "'q' must be an object");
  if (!isPlainObject(u) && !Array.isArray(u)) {
    throw new CommandError("TypeMismatch", "'u' must be an object or a pipeline");
  }
  const multi = s.multi === true;
  if (multi && !Array.isArray(u) && !isOperatorUpdate(u)) {
    throw new CommandError("FailedToParse", "multi update is not supported for replacement-style update");
  }
  checkArrayFilters(u, s.arrayFilters);
  const arrayFilters = Array.isArray(s.arrayFilters) ? (s.arrayFilters as Document[]) : undefined;
  return { q, u: u as UpdateSpec, multi, upsert: s.upsert === true, arrayFilters };
}

/**
 * Stores a new version of a document (an update's post-image or an upsert's new document)
 * after checking that MongoDB would store it (size against `maxSize`, nesting, field names),
 * the collection's validator (unless `bypass`) and the unique indexes. Throws as a command
 * error, leaving the stored version untouched; callers turn it into a write error where
 * MongoDB does.
 */
export function storeVersion(
  writes: WriteSet,
  coll: Collection,
  doc: Document,
  isInsert: boolean,
  maxSize: number,
  bypass: boolean,
): void {
  checkStorable(doc, "update", maxSize);
  checkValid(coll, doc, isInsert ? undefined : coll.docs.get(doc._id), bypass);
  const dup = coll.findDuplicate(doc, isInsert);
  if (dup) throw duplicateError(coll.db, coll.name, dup);
  writes.put(coll, doc);
}

/** Runs one statement synchronously (read-modify-write with no await in between). */
function runStatement(
  ctx: CommandContext,
  name: string,
  statement: Document,
  writes: WriteSet,
  variables?: Variables,
): Outcome {
  const { q, u, multi, upsert, arrayFilters } = parseStatement(statement, variables);
  const existing = ctx.engine.catalog.get(ctx.db, name);
  checkHint(existing, statement.hint);
  const collation = operationCollation(statement.collation, existing);
  const options = { filter: q, arrayFilters, collation, variables };
  const maxSize = ctx.engine.limits.maxBsonObjectSize;
  const bypass = bypassValidation(ctx.body);
  const targets = existing
    ? collect(runRead(existing, { filter: q, limit: multi ? 0 : 1, collation, hint: statement.hint ?? undefined }))
    : (compileFilter(q, collation), []);
  if (targets.length === 0) {
    if (!upsert) return { matched: 0, modified: 0 };
    const coll = writes.ensure(ctx.db, name);
    const doc = prepareInsert(upsertDocument(q, u, options));
    storeVersion(writes, coll, doc, true, maxSize, bypass);
    return { matched: 0, modified: 0, upsertedId: doc._id };
  }
  let modified = 0;
  for (let i = 0; i < targets.length; i++) {
    // Updating many documents is long work too: an interrupt point every so many.
    if (atInterruptPoint(i + 1)) checkForInterrupt();
    const doc = targets[i];
    const next = applyUpdate(doc, u, options);
    if (!next.changed) continue;
    storeVersion(writes, existing!, next.doc, false, maxSize, bypass);
    modified++;
  }
  return { matched: targets.length, modified };
}

async function update(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "update");
  const updates = statements(ctx, "updates");
  for (const statement of updates) checkStatementFields("update.updates", statement);
  const ordered = ctx.body.ordered !== false;
  const variables = parseLet(ctx.body);
  const writes = startWrites(ctx);
  const writeErrors: Document[] = [];
  const upserted: Document[] = [];
  let n = 0;
  let nModified = 0;
  let interrupted: unknown;
  for (let i = 0; i < updates.length; i++) {
    try {
      const outcome = runStatement(ctx, name, updates[i], writes, variables);
      n += outcome.matched;
      nModified += outcome.modified;
      if (outcome.upsertedId !== undefined) {
        n++;
        upserted.push({ index: i, _id: outcome.upsertedId });
      }
    } catch (error) {
      // Past its time limit the command fails as a whole, as MongoDB's does; what it wrote stays.
      if (isInterruption(error)) {
        interrupted = error;
        break;
      }
      writeErrors.push(
        error instanceof CommandError && error.code === 11000
          ? { index: i, code: 11000, errmsg: error.message, ...error.extra }
          : statementError(i, error),
      );
      if (ordered) break;
    }
  }
  await commit(ctx, writes);
  if (interrupted !== undefined) throw interrupted;
  return writeReply(upserted.length ? { n, nModified, upserted } : { n, nModified }, writeErrors);
}

/** The update command. */
export const updateCommands: Record<string, Handler> = { update };
