import type { Document, Long } from "bson";
import { firstKey, isPlainObject } from "../bson.ts";
import { CommandError } from "../errors.ts";
import { collect, countMatching, matching, planRead, type ReadSpec, runRead } from "../query/plan.ts";
import type { Collection } from "../store/collection.ts";
import { keyTuples } from "../store/key-tuples.ts";
import { compileProjection, dependsOnDocumentOnly } from "../query/project.ts";
import { bindFilter, parseLet } from "../query/variables.ts";
import { valuesAt } from "../store/paths.ts";
import { compareValues, keyOf } from "../store/values.ts";
import {
  collectionName,
  cursorId,
  firstBatchSize,
  namespace,
  optionalCount,
  optionalDocument,
  optionalNumber,
} from "./args.ts";
import { resolver } from "./aggregate.ts";
import { readCollation } from "./collation.ts";
import { checkHint } from "./hint.ts";
import { findStages, readView, resolveView } from "./views.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

function find(ctx: CommandContext): Reply {
  const name = collectionName(ctx, "find");
  const { body } = ctx;
  const filter = bindFilter(optionalDocument(body, "filter"), parseLet(body));
  const rawLimit = optionalNumber(body, "limit") ?? 0;
  const single = body.singleBatch === true || rawLimit < 0;
  const limit = Math.abs(rawLimit);
  const coll = ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, body.hint);
  const view = resolveView(ctx, name);
  const collation = readCollation(body.collation, coll, view);
  const spec = {
    filter,
    sort: optionalDocument(body, "sort"),
    skip: optionalCount(body, "skip") ?? 0,
    limit,
    collation,
  };
  if (body.returnKey === true && !view) {
    return ctx.engine.cursors.first(namespace(ctx.db, name), indexKeys(coll, spec), null, firstBatchSize(body), single);
  }
  const source = view
    ? readView(ctx, view, findStages(filter, spec.sort, spec.skip, limit), resolver(ctx))
    : runRead(coll, spec);
  const project = compileProjection(optionalDocument(body, "projection"), filter);
  const batchSize = firstBatchSize(body);
  // A limited read is a page, likely read again: its serialised documents are worth keeping.
  const cached = limit > 0 && dependsOnDocumentOnly(project);
  return ctx.engine.cursors.first(namespace(ctx.db, name), source, project, batchSize, single, cached);
}

/**
 * `returnKey`: each match as the key of the index the plan read it through (`{}` when the plan
 * scanned the collection), as MongoDB answers it. On a multikey index, a document that several
 * keys lead to is given its first key in the scan's direction.
 */
function* indexKeys(coll: Collection | undefined, spec: ReadSpec): Generator<Document> {
  const planned = planRead(coll, spec);
  if (!planned) return;
  const { plan, docs } = planned;
  // A collection read in a requested order (the `_id` order) is a read of the `_id` index.
  const sorted = isPlainObject(spec.sort) && firstKey(spec.sort) !== undefined;
  const scanned = plan.kind === "collscan" && !(plan.ordered && sorted);
  for (let step = docs.next(); !step.done; step = docs.next()) {
    const doc = step.value;
    if (scanned) yield {};
    else if (plan.kind !== "ixscan") yield { _id: doc._id };
    else yield keyDocument(doc, plan.scan.index.fields, plan.scan.reverse);
  }
}

function keyDocument(doc: Document, fields: readonly string[], reverse: boolean): Document {
  const tuples = keyTuples(doc, fields);
  const tuple = tuples.length === 1 ? tuples[0] : [...tuples].sort(compareTuples)[reverse ? tuples.length - 1 : 0];
  const key: Document = {};
  fields.forEach((field, i) => key[field] = tuple[i]);
  return key;
}

function compareTuples(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

function getMore(ctx: CommandContext): Reply {
  const id = cursorId(ctx.body.getMore);
  const batch = ctx.engine.cursors.more(id, optionalCount(ctx.body, "batchSize") || undefined);
  if (!batch) throw new CommandError("CursorNotFound", `cursor id ${id.toString()} not found`);
  return batch;
}

function killCursors(ctx: CommandContext): Document {
  const ids = ctx.body.cursors;
  if (!Array.isArray(ids)) throw new CommandError("FailedToParse", "'cursors' must be an array");
  const killed: Long[] = [];
  const notFound: Long[] = [];
  for (const raw of ids) {
    const id = cursorId(raw);
    (ctx.engine.cursors.kill(id) ? killed : notFound).push(id);
  }
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
}

function count(ctx: CommandContext): Document {
  const name = collectionName(ctx, "count");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, ctx.body.hint);
  const skip = optionalCount(ctx.body, "skip") ?? 0;
  const limit = Math.abs(optionalNumber(ctx.body, "limit") ?? 0);
  const query = optionalDocument(ctx.body, "query");
  const view = resolveView(ctx, name);
  const collation = readCollation(ctx.body.collation, coll, view);
  if (view) {
    return { n: collect(readView(ctx, view, findStages(query, undefined, skip, limit), resolver(ctx))).length, ok: 1 };
  }
  return { n: countMatching(coll, query, skip, limit, collation), ok: 1 };
}

function distinct(ctx: CommandContext): Document {
  const name = collectionName(ctx, "distinct");
  const key = ctx.body.key;
  if (typeof key !== "string") throw new CommandError("TypeMismatch", "'key' must be a string");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, ctx.body.hint);
  const view = resolveView(ctx, name);
  const collation = readCollation(ctx.body.collation, coll, view);
  if (!coll) return { values: [], ok: 1 };
  const filter = optionalDocument(ctx.body, "query");
  const docs = view
    ? { [Symbol.iterator]: () => readView(ctx, view, findStages(filter, undefined, 0, 0), resolver(ctx)) }
    : matching(coll, filter, collation);
  const seen = new Map<unknown, unknown>();
  for (const doc of docs) {
    for (const v of valuesAt(doc, key)) if (v !== undefined) seen.set(keyOf(v), v);
  }
  const sorted = [...seen.values()].sort((a, b) => compareValues(a, b, collation?.compare));
  return {
    values: collation
      ? sorted.filter((v, i) => i === 0 || compareValues(sorted[i - 1], v, collation.compare) !== 0)
      : sorted,
    ok: 1,
  };
}

/** Read commands: find and its cursor companions, count, distinct. */
export const readCommands: Record<string, Handler> = { find, getMore, killCursors, count, distinct };
