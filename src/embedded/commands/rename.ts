import type { Document } from "bson";
import { CommandError } from "../errors.ts";
import type { Namespace } from "../store/write-set.ts";
import { type CommandContext, commit, startWrites } from "./context.ts";
import { namespace } from "./args.ts";
import { checkCollectionName, checkDatabaseName } from "./names.ts";
import { killDropped, killRenamed } from "./plan-kills.ts";

/**
 * `renameCollection` (what the driver's `collection.rename()` and `db.renameCollection()` send):
 * run against `admin`, it moves a collection to a new name, in its database or another, with
 * its documents, indexes and options. As MongoDB does, it refuses a missing source, a target
 * that exists unless `dropTarget` is true (then the target is dropped first), a rename onto
 * itself, a view, and a `system.` collection on either side.
 */
async function renameCollection(ctx: CommandContext): Promise<Document> {
  if (ctx.db !== "admin") {
    throw new CommandError("Unauthorized", "renameCollection may only be run against the admin database.");
  }
  const from = namespaceOf(ctx.body.renameCollection, "source");
  const to = namespaceOf(ctx.body.to, "target");
  const { catalog } = ctx.engine;
  const source = catalog.get(from.db, from.name);
  if (source === undefined) {
    throw new CommandError("NamespaceNotFound", `Source collection ${text(from)} does not exist`);
  }
  if (source.options.viewOn !== undefined) {
    throw new CommandError("CommandNotSupportedOnView", `cannot rename view: ${text(from)}`);
  }
  if (from.db === to.db && from.name === to.name) {
    throw new CommandError("IllegalOperation", "Can't rename a collection to itself");
  }
  const target = catalog.get(to.db, to.name);
  if (target !== undefined) {
    if (ctx.body.dropTarget !== true) throw new CommandError("NamespaceExists", "target namespace exists");
    if (target.options.viewOn !== undefined) {
      throw new CommandError("CommandNotSupportedOnView", `cannot rename to a view: ${text(to)}`);
    }
  }
  const writes = startWrites(ctx);
  writes.renameCollection(from, to, target !== undefined);
  await commit(ctx, writes);
  if (target !== undefined) killDropped(ctx.engine.cursors, [namespace(to.db, to.name)]);
  killRenamed(ctx.engine.cursors, from, to);
  return { ok: 1 };
}

/** A full namespace argument (`db.collection`), checked. */
function namespaceOf(value: unknown, role: "source" | "target"): Namespace {
  const dot = typeof value === "string" ? value.indexOf(".") : -1;
  if (typeof value !== "string" || dot <= 0 || dot === value.length - 1) {
    throw new CommandError("InvalidNamespace", `Invalid ${role} namespace: ${String(value)}`);
  }
  const ns = { db: value.slice(0, dot), name: value.slice(dot + 1) };
  if (/[/\\. "$*<>:|?\0]/.test(ns.db) || /[$\0]/.test(ns.name)) {
    throw new CommandError("InvalidNamespace", `Invalid ${role} namespace: ${value}`);
  }
  checkDatabaseName(ns.db);
  checkCollectionName(ns.db, ns.name);
  if (ns.name.startsWith("system.")) {
    throw new CommandError("IllegalOperation", `error with ${role} namespace: cannot rename a system collection`);
  }
  return ns;
}

const text = (ns: Namespace): string => `${ns.db}.${ns.name}`;

/** The command, for the registry. */
export const renameCommands = { renameCollection };
