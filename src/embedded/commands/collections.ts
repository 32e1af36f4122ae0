import type { Document } from "bson";
import { mingoQuery } from "../query/mingo.ts";
import { ID_INDEX } from "../store/collection.ts";
import { definitionCommands } from "./define.ts";
import { collectionsOf, killDropped } from "./plan-kills.ts";
import { indexDocument } from "./indexes.ts";
import { databaseBytes } from "./stats.ts";
import { collectionName, firstBatchSize, namespace, optionalDocument } from "./args.ts";
import { type CommandContext, commit, type Handler, type Reply, startWrites } from "./context.ts";

async function drop(ctx: CommandContext): Promise<Document> {
  const name = collectionName(ctx, "drop");
  const existing = ctx.engine.catalog.get(ctx.db, name);
  const indexes = existing?.options.viewOn === undefined ? existing?.allIndexes().length : undefined;
  const doomed = collectionsOf(ctx.engine.catalog, ctx.db, name);
  const writes = startWrites(ctx);
  const dropped = writes.dropCollection(ctx.db, name);
  await commit(ctx, writes);
  killDropped(ctx.engine.cursors, doomed);
  if (!dropped) return { ok: 1 };
  return indexes === undefined
    ? { ns: namespace(ctx.db, name), ok: 1 }
    : { ns: namespace(ctx.db, name), nIndexesWas: indexes, ok: 1 };
}

async function dropDatabase(ctx: CommandContext): Promise<Document> {
  const doomed = collectionsOf(ctx.engine.catalog, ctx.db);
  const writes = startWrites(ctx);
  writes.dropDatabase(ctx.db);
  await commit(ctx, writes);
  killDropped(ctx.engine.cursors, doomed);
  return { dropped: ctx.db, ok: 1 };
}

function listCollections(ctx: CommandContext): Reply {
  const filter = optionalDocument(ctx.body, "filter");
  const query = filter ? mingoQuery(filter) : undefined;
  const nameOnly = ctx.body.nameOnly === true;
  const entries = ctx.engine.catalog
    .collections(ctx.db)
    .map((c): Document => {
      const type = c.options.viewOn === undefined ? "collection" : "view";
      if (nameOnly) return { name: c.name, type };
      if (type === "view") return { name: c.name, type, options: { ...c.options }, info: { readOnly: true } };
      return {
        name: c.name,
        type,
        options: { ...c.options },
        info: { readOnly: false },
        idIndex: indexDocument(ID_INDEX),
      };
    })
    .filter((entry) => !query || query.test(entry));
  const batchSize = firstBatchSize(ctx.body.cursor);
  return ctx.engine.cursors.first(namespace(ctx.db, "$cmd.listCollections"), entries[Symbol.iterator](), {
    batchSize,
    session: ctx.session,
  });
}

function listDatabases(ctx: CommandContext): Document {
  const filter = optionalDocument(ctx.body, "filter");
  const query = filter ? mingoQuery(filter) : undefined;
  const { catalog } = ctx.engine;
  const databases = catalog
    .databases()
    .map((name) => ({ name, sizeOnDisk: databaseBytes(catalog, name), empty: false }))
    .filter((entry) => !query || query.test(entry));
  if (ctx.body.nameOnly === true) return { databases: databases.map(({ name }) => ({ name })), ok: 1 };
  const totalSize = databases.reduce((sum, entry) => sum + entry.sizeOnDisk, 0);
  return { databases, totalSize, totalSizeMb: Math.floor(totalSize / 2 ** 20), ok: 1 };
}

/** Collection and database management. */
export const collectionCommands: Record<string, Handler> = {
  ...definitionCommands,
  drop,
  dropDatabase,
  listCollections,
  listDatabases,
};
