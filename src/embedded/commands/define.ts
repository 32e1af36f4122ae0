import type { Document } from "bson";
import { isPlainObject } from "../bson.ts";
import type { CollectionOptions, IndexSpec } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { parseCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import type { WriteSet } from "../store/write-set.ts";
import { collectionName, namespace } from "./args.ts";
import { type CommandContext, commit, type Handler, startWrites } from "./context.ts";
import { expireAfterSecondsOf } from "./index-options.ts";
import { indexByKeyPattern } from "./index-signature.ts";
import { parseValidation } from "./validation.ts";
import { checkViewDefinition } from "./views.ts";

/** `create` options the engine cannot honour: refused rather than ignored. */
const UNSUPPORTED_CREATE_OPTIONS = [
  "capped",
  "timeseries",
  "clusteredIndex",
  "encryptedFields",
  "changeStreamPreAndPostImages",
  "expireAfterSeconds",
];
/** `collMod` options the engine cannot honour. */
const UNSUPPORTED_COLLMOD_OPTIONS = [
  "timeseries",
  "cappedSize",
  "cappedMax",
  "changeStreamPreAndPostImages",
  "expireAfterSeconds",
  "dryRun",
];
const VALIDATION_FIELDS = ["validator", "validationLevel", "validationAction"];

function refuseUnsupported(body: Document, options: string[], what: string): void {
  const unsupported = options.find((o) => body[o] !== undefined && body[o] !== false);
  if (unsupported) {
    throw new CommandError("NotImplemented", `'${unsupported}' ${what} is not supported by the embedded engine`);
  }
}

/**
 * The options `create` asks for: a default collation (of a collection or a view; a view does
 * not inherit its source's), and a view (viewOn, pipeline) or a collection with validation.
 */
function createOptions(ctx: CommandContext, name: string): CollectionOptions {
  const { body } = ctx;
  const collation = parseCollation(body.collation);
  const base: CollectionOptions = collation ? { collation: collation.spec } : {};
  if (body.viewOn === undefined) {
    if (body.pipeline !== undefined) throw new CommandError("BadValue", "'pipeline' requires 'viewOn'");
    return parseValidation(body, base);
  }
  const invalid = VALIDATION_FIELDS.find((f) => body[f] !== undefined);
  if (invalid) throw new CommandError("InvalidOptions", `'${invalid}' is not allowed on a view`);
  return { ...checkViewDefinition(ctx, name, body.viewOn, body.pipeline, collation), ...base };
}

async function create(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "create");
  refuseUnsupported(ctx.body, UNSUPPORTED_CREATE_OPTIONS, "on create");
  if (ctx.engine.catalog.get(ctx.db, name)) {
    throw new CommandError("NamespaceExists", `Collection ${namespace(ctx.db, name)} already exists.`);
  }
  const options = createOptions(ctx, name);
  const writes = startWrites(ctx);
  writes.ensure(ctx.db, name, Object.keys(options).length > 0 ? options : undefined);
  await commit(ctx, writes);
  return { ok: 1 };
}

/**
 * The new options of a view: `viewOn` and `pipeline` are given together, as MongoDB requires.
 * Its collation stays: collMod cannot change it.
 */
function viewChange(ctx: CommandContext, view: Collection): CollectionOptions {
  const { body } = ctx;
  const current = view.options;
  const invalid = VALIDATION_FIELDS.find((f) => body[f] !== undefined);
  if (invalid) throw new CommandError("InvalidOptions", `'${invalid}' is not allowed on a view`);
  if (body.viewOn === undefined && body.pipeline === undefined) return current;
  if (body.viewOn === undefined || body.pipeline === undefined) {
    throw new CommandError("InvalidOptions", "must specify both 'viewOn' and 'pipeline' when modifying a view");
  }
  const keep: CollectionOptions = current.collation ? { collation: current.collation } : {};
  return { ...checkViewDefinition(ctx, view.name, body.viewOn, body.pipeline, view.collation), ...keep };
}

/** The index a collMod `index` names, by `name` or `keyPattern`. */
function namedIndex(coll: Collection, target: Document): IndexSpec {
  const byName = typeof target.name === "string";
  if (byName === isPlainObject(target.keyPattern)) {
    throw new CommandError("InvalidOptions", "collMod 'index' must name the index by either 'name' or 'keyPattern'");
  }
  const found = byName
    ? coll.allIndexes().find((spec) => spec.name === target.name)
    : indexByKeyPattern(coll, target.keyPattern);
  if (found === undefined) {
    const which = byName ? String(target.name) : JSON.stringify(target.keyPattern);
    throw new CommandError("IndexNotFound", `cannot find index ${which} for ns ${namespace(coll.db, coll.name)}`);
  }
  return found;
}

/**
 * collMod's `index`: sets the `expireAfterSeconds` of a TTL index, or makes a single-field index
 * one (as MongoDB 5.1 and later do). Hiding an index or making it unique are refused. Returns the
 * reply's fields.
 */
function changeIndex(writes: WriteSet, coll: Collection, target: unknown): Document {
  if (!isPlainObject(target)) throw new CommandError("TypeMismatch", "collMod 'index' must be a document");
  if (coll.options.viewOn !== undefined) {
    throw new CommandError("OptionNotSupportedOnView", "collMod 'index' does not apply to a view");
  }
  const unsupported = ["hidden", "unique", "prepareUnique"].find((field) => target[field] !== undefined);
  if (unsupported) {
    throw new CommandError(
      "NotImplemented",
      `'index.${unsupported}' in collMod is not supported by the embedded engine`,
    );
  }
  if (target.expireAfterSeconds === undefined) {
    throw new CommandError("InvalidOptions", "collMod 'index' needs a change: 'expireAfterSeconds'");
  }
  const spec = namedIndex(coll, target);
  const seconds = expireAfterSecondsOf(target, spec.key)!;
  const reply: Document = spec.expireAfterSeconds === undefined
    ? {}
    : { expireAfterSeconds_old: spec.expireAfterSeconds };
  if (spec.expireAfterSeconds !== seconds) writes.setIndexExpiry(coll, spec.name, seconds);
  return { ...reply, expireAfterSeconds_new: seconds };
}

/**
 * collMod: changes a view's definition, a collection's validator, validationLevel and
 * validationAction, or a TTL index's expiry.
 */
async function collMod(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "collMod");
  refuseUnsupported(ctx.body, UNSUPPORTED_COLLMOD_OPTIONS, "in collMod");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  if (!coll) throw new CommandError("NamespaceNotFound", `ns does not exist: ${namespace(ctx.db, name)}`);
  let options: CollectionOptions;
  if (coll.options.viewOn !== undefined) options = viewChange(ctx, coll);
  else {
    if (ctx.body.viewOn !== undefined || ctx.body.pipeline !== undefined) {
      throw new CommandError(
        "InvalidOptions",
        `${namespace(ctx.db, name)} is a collection, not a view: 'viewOn' and 'pipeline' do not apply`,
      );
    }
    options = parseValidation(ctx.body, coll.options);
  }
  const writes = startWrites(ctx);
  const indexReply = ctx.body.index === undefined ? {} : changeIndex(writes, coll, ctx.body.index);
  if (options !== coll.options) writes.setOptions(coll, options);
  await commit(ctx, writes);
  return { ...indexReply, ok: 1 };
}

/** create and collMod. */
export const definitionCommands: Record<string, Handler> = { create, collMod };
