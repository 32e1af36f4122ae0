import type { Document } from "bson";
import type { CollectionOptions } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { parseCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { collectionName, namespace } from "./args.ts";
import { type CommandContext, commit, type Handler, startWrites } from "./context.ts";
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
  "index",
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

/** collMod: changes a view's definition, or a collection's validator, validationLevel and validationAction. */
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
  if (options !== coll.options) writes.setOptions(coll, options);
  await commit(ctx, writes);
  return { ok: 1 };
}

/** create and collMod. */
export const definitionCommands: Record<string, Handler> = { create, collMod };
