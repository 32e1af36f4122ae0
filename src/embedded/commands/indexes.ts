import type { Document } from "bson";
import { isPlainObject, toNumber } from "../bson.ts";
import type { IndexSpec } from "../changes.ts";
import { CommandError } from "../errors.ts";
import { parseCollation } from "../store/collation.ts";
import type { Collection } from "../store/collection.ts";
import { keyOf } from "../store/values.ts";
import { collectionName, firstBatchSize, namespace } from "./args.ts";
import { type CommandContext, commit, type Handler, type Reply, startWrites } from "./context.ts";
import { duplicateError } from "./duplicate.ts";
import {
  boolOption,
  checkIndexOptions,
  coverageOptionsOf,
  expireAfterSecondsOf,
  unknownIndexField,
  withoutUnknownFields,
} from "./index-options.ts";
import { checkIndexSpec, checkTtlOption, specialIndexType } from "./index-spec-checks.ts";
import { alreadyExists, indexByKeyPattern } from "./index-signature.ts";
import { killIndexReaders } from "./plan-kills.ts";
import { isInterruption } from "../query/interrupts.ts";
import { setField } from "../field-names.ts";

/** An index as listIndexes shows it: `v`, `key` and `name` first, as MongoDB lists them, then the options. */
export function indexDocument(spec: IndexSpec): Document {
  const { key, name, ...options } = spec;
  return { v: 2, key, name, ...options };
}

function parseSpec(raw: unknown, coll: Collection | undefined): IndexSpec {
  checkIndexSpec(raw, unknownIndexField(raw));
  checkIndexOptions(raw);
  const special = specialIndexType(raw.key);
  if (special !== undefined) {
    throw new CommandError("NotImplemented", `${special} indexes are not supported by the embedded engine`);
  }
  const key: Record<string, 1 | -1> = {};
  for (const [field, dir] of Object.entries(raw.key as Document)) {
    const n = toNumber(dir);
    // MongoDB takes any other non-zero number as a direction; the engine keeps its patterns to 1 and -1.
    if (n !== 1 && n !== -1) {
      throw new CommandError(
        "NotImplemented",
        `index key value ${String(dir)} is not supported by the embedded engine`,
      );
    }
    setField(key, field, n);
  }
  const name = raw.name as string;
  // An index without a collation takes the collection's default, as in MongoDB.
  const collation = raw.collation !== undefined ? parseCollation(raw.collation) : coll?.collation;
  const spec: IndexSpec = boolOption(raw, "unique") ? { name, key, unique: true } : { name, key };
  const expireAfterSeconds = expireAfterSecondsOf(raw, key);
  if (expireAfterSeconds !== undefined) spec.expireAfterSeconds = expireAfterSeconds;
  Object.assign(spec, coverageOptionsOf(raw, key));
  return collation ? { ...spec, collation: collation.spec } : spec;
}

/** The command's specs, checked as 7.0 checks them: every TTL option first, then each spec in turn. */
function parseSpecs(ctx: CommandContext, coll: Collection | undefined): IndexSpec[] {
  const { indexes } = ctx.body;
  if (!Array.isArray(indexes)) throw new CommandError("TypeMismatch", "'indexes' must be an array");
  if (indexes.length === 0) throw new CommandError("BadValue", "Must specify at least one index to create");
  const raws = ctx.body.ignoreUnknownIndexOptions === true ? indexes.map(withoutUnknownFields) : indexes;
  for (const raw of raws) checkTtlOption(raw);
  return raws.map((raw: unknown) => parseSpec(raw, coll));
}

async function createIndexes(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "createIndexes");
  const specs = parseSpecs(ctx, ctx.engine.catalog.get(ctx.db, name));
  const writes = startWrites(ctx);
  const createdCollectionAutomatically = !ctx.engine.catalog.get(ctx.db, name);
  const coll = writes.ensure(ctx.db, name);
  const before = coll.allIndexes().length;
  const built: string[] = [];
  try {
    for (const spec of specs) {
      if (alreadyExists(coll, spec)) continue;
      // MongoDB builds under the command's deadline; the engine's build of one index is one
      // step, so the deadline is checked before each, and a build it stops leaves no index.
      ctx.operation.check();
      const dup = writes.addIndex(coll, spec);
      if (dup) throw duplicateError(ctx.db, name, dup);
      built.push(spec.name);
    }
  } catch (error) {
    if (isInterruption(error)) { for (const index of built) writes.dropIndex(coll, index); }
    throw error;
  } finally {
    await commit(ctx, writes);
  }
  const after = coll.allIndexes().length;
  const reply: Document = { createdCollectionAutomatically, numIndexesBefore: before, numIndexesAfter: after, ok: 1 };
  return after === before ? { ...reply, note: "all indexes already exist" } : reply;
}

function listIndexes(ctx: CommandContext): Reply {
  const name = collectionName(ctx, "listIndexes");
  const coll = ctx.engine.catalog.get(ctx.db, name);
  if (!coll) throw new CommandError("NamespaceNotFound", `ns does not exist: ${namespace(ctx.db, name)}`);
  const entries = coll.allIndexes().map(indexDocument);
  const batchSize = firstBatchSize(ctx.body.cursor);
  return ctx.engine.cursors.first(namespace(ctx.db, name), entries[Symbol.iterator](), {
    batchSize,
    session: ctx.session,
  });
}

function targets(coll: Collection, which: unknown): string[] {
  const secondary = [...coll.indexes.values()];
  if (which === "*") return secondary.map((s) => s.name);
  const names = Array.isArray(which) ? which : [which];
  return names.map((w) => {
    if (w === "_id_" || (isPlainObject(w) && keyOf(w) === keyOf({ _id: 1 }))) {
      throw new CommandError("InvalidOptions", "cannot drop _id index");
    }
    const found = typeof w === "string"
      ? secondary.find((s) => s.name === w)
      : isPlainObject(w)
      ? indexByKeyPattern(coll, w)
      : undefined;
    if (!found) {
      throw new CommandError(
        "IndexNotFound",
        `index not found with name [${typeof w === "string" ? w : JSON.stringify(w)}]`,
      );
    }
    return found.name;
  });
}

async function dropIndexes(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, Object.keys(ctx.body)[0]);
  const coll = ctx.engine.catalog.get(ctx.db, name);
  if (!coll) throw new CommandError("NamespaceNotFound", `ns not found ${namespace(ctx.db, name)}`);
  const before = coll.allIndexes().length;
  const names = targets(coll, ctx.body.index);
  const writes = startWrites(ctx);
  for (const index of names) writes.dropIndex(coll, index);
  await commit(ctx, writes);
  killIndexReaders(ctx.engine.cursors, namespace(ctx.db, name), names);
  return { nIndexesWas: before, ok: 1 };
}

/** Index management. Only unique indexes are enforced and used for lookups. */
export const indexCommands: Record<string, Handler> = {
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
};
