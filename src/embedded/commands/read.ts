import type { Document, Long } from "bson";
import { firstKey, isPlainObject, trueValue } from "../bson.ts";
import type { FirstBatchOptions } from "../cursors.ts";
import { missingField, wrongType } from "../field-errors.ts";
import { sessionText } from "../sessions.ts";
import { CommandError } from "../errors.ts";
import { mingoQuery } from "../query/mingo.ts";
import { matching, planPausingRead, type ReadSpec } from "../query/plan.ts";
import { PAUSE, type Paused } from "../query/interrupts.ts";
import { countSliced, countView, readerOf, whenDone } from "./sliced-reads.ts";
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
import { findStages, joinedNamespaces, readView, resolveView } from "./views.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";

/** MongoDB's context for an interrupted find. */
const FIND_CONTEXT = "Executor error during find command";

/**
 * Whose a find's cursor is: its session, and whether it may idle past the timeout; and the
 * command filling its batches, interrupted with MongoDB's context for a find.
 */
function owner(ctx: CommandContext): FirstBatchOptions {
  ctx.operation.context = FIND_CONTEXT;
  return { session: ctx.session, noTimeout: trueValue(ctx.body.noCursorTimeout), operation: ctx.operation };
}

function find(ctx: CommandContext): Reply | Promise<Reply> {
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
    hint: body.hint ?? undefined,
  };
  if (body.returnKey === true) {
    if (view) throw new CommandError("InvalidPipelineOperator", "Option returnKey not supported in aggregation.");
    const natural = isPlainObject(body.hint) && "$natural" in body.hint;
    const keys = indexKeys(coll, spec, natural);
    return ctx.engine.cursors.first(namespace(ctx.db, name), keys, {
      ...owner(ctx),
      batchSize: firstBatchSize(body),
      single,
      reads: namespace(ctx.db, name),
    });
  }
  const planned = view ? undefined : planPausingRead(coll, spec, true);
  const source = view
    ? readView(ctx, view, findStages(filter, spec.sort, spec.skip, limit), resolver(ctx), undefined, true)
    : planned?.docs ?? [][Symbol.iterator]();
  const project = compileProjection(optionalDocument(body, "projection"), filter);
  const batchSize = firstBatchSize(body);
  // A limited read is a page, likely read again: its serialised documents are worth keeping.
  const cached = limit > 0 && dependsOnDocumentOnly(project);
  // One literal, not a spread of owner(): a page read makes it on every request.
  ctx.operation.context = FIND_CONTEXT;
  return ctx.engine.cursors.first(namespace(ctx.db, name), source, {
    session: ctx.session,
    noTimeout: trueValue(body.noCursorTimeout),
    operation: ctx.operation,
    project,
    batchSize,
    single,
    cached,
    reads: namespace(ctx.db, view ? view.source : name),
    index: planned?.plan.kind === "ixscan" ? planned.plan.scan.index.spec.name : undefined,
    joins: view ? joinedNamespaces(ctx, view.pipeline) : undefined,
  });
}

/**
 * `returnKey`: each match as the key of the index the plan read it through (`{}` when the plan
 * scanned the collection, or the hint asked for `$natural` order), as MongoDB answers it. On a
 * multikey index, a document is given the first of its keys, in the scan's direction, that
 * meets the filter's conditions on the index's fields: the key the scan found it by. The plan
 * is the engine's, which may differ from MongoDB's (docs/embedded-engine.md).
 */
function* indexKeys(coll: Collection | undefined, spec: ReadSpec, natural: boolean): Generator<Paused<Document>> {
  const planned = planPausingRead(coll, spec, true);
  if (!planned) return;
  const { plan, docs } = planned;
  // A collection read in a requested order (the `_id` order) is a read of the `_id` index.
  const sorted = isPlainObject(spec.sort) && firstKey(spec.sort) !== undefined;
  const scanned = natural || (plan.kind === "collscan" && !(plan.ordered && sorted));
  const bounded = plan.kind === "ixscan" ? keyTest(spec.filter, plan.scan.index.fields, spec.collation) : undefined;
  for (let step = docs.next(); !step.done; step = docs.next()) {
    const doc = step.value;
    if (doc === PAUSE) yield doc;
    else if (scanned) yield {};
    else if (plan.kind !== "ixscan") yield { _id: doc._id };
    else yield keyDocument(doc, plan.scan.index.fields, plan.scan.reverse, bounded);
  }
}

/** A test of a key document against the filter's top-level conditions on the index's fields. */
function keyTest(filter: unknown, fields: readonly string[], collation: ReadSpec["collation"]) {
  if (!isPlainObject(filter)) return undefined;
  const conditions = Object.fromEntries(Object.entries(filter).filter(([field]) => fields.includes(field)));
  if (firstKey(conditions) === undefined) return undefined;
  const query = mingoQuery(conditions, collation);
  return (key: Document) => query.test(nestedKey(key));
}

/** `{"a.b": 1}` as `{a: {b: 1}}`, so a filter on the path reads it. */
function nestedKey(key: Document): Document {
  const nested: Document = {};
  for (const [path, value] of Object.entries(key)) {
    const parts = path.split(".");
    let at = nested;
    for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Document;
    at[parts[parts.length - 1]] = value;
  }
  return nested;
}

function keyDocument(
  doc: Document,
  fields: readonly string[],
  reverse: boolean,
  bounded: ((key: Document) => boolean) | undefined,
): Document {
  const asKey = (tuple: unknown[]) => Object.fromEntries(fields.map((field, i) => [field, tuple[i]]));
  const tuples = keyTuples(doc, fields);
  if (tuples.length === 1) return asKey(tuples[0]);
  const ordered = [...tuples].sort(compareTuples);
  if (reverse) ordered.reverse();
  const keys = ordered.map(asKey);
  return keys.find((key) => bounded?.(key) ?? true) ?? keys[0];
}

function compareTuples(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < a.length; i++) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return 0;
}

/**
 * Checks that a getMore reads the cursor it names as MongoDB does: in the cursor's namespace,
 * and in the session that opened it (or outside any, for a cursor opened outside one).
 */
function checkCursorOwner(ctx: CommandContext, id: Long): void {
  const { collection } = ctx.body;
  if (collection === undefined) {
    throw missingField("getMore.collection");
  }
  if (typeof collection !== "string") throw wrongType("getMore.collection", collection, "string");
  const cursor = ctx.engine.cursors.ownerOf(id);
  if (cursor === undefined) throw new CommandError("CursorNotFound", `cursor id ${id.toString()} not found`);
  const ns = namespace(ctx.db, collection);
  if (ns !== cursor.ns) {
    throw new CommandError(
      "Unauthorized",
      `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`,
    );
  }
  const used = ctx.session;
  const opened = cursor.session;
  if (used === opened) return;
  const prefix = `Cannot run getMore on cursor ${id.toString()}, which was`;
  if (opened === undefined) {
    throw new CommandError("Location50736", `${prefix} not created in a session, in session ${sessionText(used!)}`);
  }
  if (used === undefined) {
    throw new CommandError("Location50737", `${prefix} created in session ${sessionText(opened)}, without an lsid`);
  }
  throw new CommandError(
    "Location50738",
    `${prefix} created in session ${sessionText(opened)}, in session ${sessionText(used)}`,
  );
}

function getMore(ctx: CommandContext): Reply | Promise<Reply> {
  const id = cursorId(ctx.body.getMore);
  checkCursorOwner(ctx, id);
  // The engine has no tailable cursors, so none takes an awaitData timeout (getMore's maxTimeMS).
  if (ctx.body.maxTimeMS !== undefined) {
    throw new CommandError("BadValue", "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
  }
  ctx.operation.context = "Executor error during getMore";
  return ctx.engine.cursors.more(id, optionalCount(ctx.body, "batchSize") || undefined, ctx.operation)!;
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

function count(ctx: CommandContext): Document | Promise<Document> {
  const name = collectionName(ctx, "count");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, ctx.body.hint);
  const skip = optionalCount(ctx.body, "skip") ?? 0;
  const limit = Math.abs(optionalNumber(ctx.body, "limit") ?? 0);
  const query = optionalDocument(ctx.body, "query");
  const view = resolveView(ctx, name);
  const collation = readCollation(ctx.body.collation, coll, view);
  if (view) {
    const docs = readView(ctx, view, findStages(query, undefined, skip, limit), resolver(ctx), undefined, true);
    return whenDone(countView(ctx, name, docs), countReply);
  }
  const n = countSliced(ctx, name, coll, { filter: query, skip, limit, collation, hint: ctx.body.hint ?? undefined });
  return n instanceof Promise ? n.then(countReply) : countReply(n);
}

/** The count command's answer. */
function countReply(n: number): Document {
  return { n, ok: 1 };
}

function distinct(ctx: CommandContext): Document | Promise<Document> {
  const name = collectionName(ctx, "distinct");
  const key = ctx.body.key;
  if (typeof key !== "string") throw new CommandError("TypeMismatch", "'key' must be a string");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  checkHint(coll, ctx.body.hint);
  const view = resolveView(ctx, name);
  const collation = readCollation(ctx.body.collation, coll, view);
  if (!coll) return { values: [], ok: 1 };
  ctx.operation.context = "Executor error during distinct command";
  const filter = optionalDocument(ctx.body, "query");
  const docs = view
    ? readView(ctx, view, findStages(filter, undefined, 0, 0), resolver(ctx), undefined, true)
    : matching(coll, filter, collation, true)[Symbol.iterator]();
  const seen = new Map<unknown, unknown>();
  const gathered = ctx.engine.cursors.drain(docs, ctx.operation, readerOf(ctx, name), (doc: Document) => {
    for (const v of valuesAt(doc, key)) if (v !== undefined) seen.set(keyOf(v), v);
    return true;
  });
  return whenDone(gathered, () => {
    const sorted = [...seen.values()].sort((a, b) => compareValues(a, b, collation?.compare));
    return {
      values: collation
        ? sorted.filter((v, i) => i === 0 || compareValues(sorted[i - 1], v, collation.compare) !== 0)
        : sorted,
      ok: 1,
    };
  });
}

/** Read commands: find and its cursor companions, count, distinct. */
export const readCommands: Record<string, Handler> = { find, getMore, killCursors, count, distinct };
