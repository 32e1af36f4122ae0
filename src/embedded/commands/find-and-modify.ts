import { checkArrayFilters } from "../query/array-filter-checks.ts";
import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { compileFilter } from "../query/filter.ts";
import { runRead } from "../query/plan.ts";
import { compileProjection } from "../query/project.ts";
import { applyUpdate, type UpdateSpec, upsertDocument } from "../query/update.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import type { WriteSet } from "../store/write-set.ts";
import { collectionName, optionalDocument } from "./args.ts";
import { operationCollation } from "./collation.ts";
import { type CommandContext, commit, type Handler, startWrites } from "./context.ts";
import { checkHint } from "./hint.ts";
import { storeVersion } from "./updates.ts";
import { bypassValidation } from "./validation.ts";
import { prepareInsert } from "./write.ts";

interface Modification {
  value: Document | null;
  lastErrorObject: Document;
}

function parseUpdate(body: Document): UpdateSpec | undefined {
  const u = body.update;
  if (u === undefined || u === null) return undefined;
  if (!isPlainObject(u) && !Array.isArray(u)) {
    throw new CommandError("TypeMismatch", "'update' must be an object or a pipeline");
  }
  return u as UpdateSpec;
}

/**
 * The whole read-modify-write of findAndModify, synchronous so that no other command runs
 * between reading the document and storing its new version (this is what makes an $inc
 * counter hand out distinct values under concurrency).
 */
function modify(ctx: CommandContext, name: string, writes: WriteSet): Modification {
  const { body } = ctx;
  const variables = parseLet(body);
  const query = bindFilter(optionalDocument(body, "query") ?? {}, variables);
  const update = parseUpdate(body);
  const remove = body.remove === true;
  if (remove && update) throw new CommandError("FailedToParse", "Cannot specify both an update and remove=true");
  if (!remove && !update) throw new CommandError("FailedToParse", "Either an update or remove=true must be specified");
  if (update) checkArrayFilters(update, body.arrayFilters);
  const existing = ctx.engine.catalog.get(ctx.db, name);
  checkHint(existing, body.hint);
  const collation = operationCollation(body.collation, existing);
  compileFilter(query, collation);
  const doc = existing
    ? runRead(existing, {
      filter: query,
      sort: optionalDocument(body, "sort"),
      limit: 1,
      collation,
      hint: body.hint ?? undefined,
    }).next().value
    : undefined;
  if (remove) {
    if (!doc || !existing) return { value: null, lastErrorObject: { n: 0 } };
    writes.delete(existing, doc._id);
    return { value: doc, lastErrorObject: { n: 1 } };
  }
  const arrayFilters = Array.isArray(body.arrayFilters) ? (body.arrayFilters as Document[]) : undefined;
  const options = { filter: query, arrayFilters, collation, variables };
  const returnNew = body.new === true;
  const maxSize = ctx.engine.limits.maxBsonObjectSize;
  const bypass = bypassValidation(body);
  if (doc && existing) {
    const next = applyUpdate(doc, update!, options);
    if (next.changed) storeVersion(writes, existing, next.doc, false, maxSize, bypass);
    return { value: returnNew ? next.doc : doc, lastErrorObject: { n: 1, updatedExisting: true } };
  }
  if (body.upsert !== true) return { value: null, lastErrorObject: { n: 0, updatedExisting: false } };
  const coll = writes.ensure(ctx.db, name);
  const inserted = prepareInsert(upsertDocument(query, update!, options));
  storeVersion(writes, coll, inserted, true, maxSize, bypass);
  return {
    value: returnNew ? inserted : null,
    lastErrorObject: { n: 1, updatedExisting: false, upserted: inserted._id },
  };
}

async function findAndModify(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, Object.keys(ctx.body)[0]);
  const project = compileProjection(optionalDocument(ctx.body, "fields"));
  const writes = startWrites(ctx);
  let outcome: Modification;
  try {
    outcome = modify(ctx, name, writes);
  } finally {
    await commit(ctx, writes);
  }
  const { value, lastErrorObject } = outcome;
  const shown = value && project ? project([value])[0] : value;
  return { lastErrorObject, value: shown, ok: 1 };
}

/** findAndModify (the driver's findOneAndUpdate/Replace/Delete). */
export const findAndModifyCommands: Record<string, Handler> = { findAndModify, findandmodify: findAndModify };
