import { firstKey } from "../bson.ts";
import { CommandError, errorReply } from "../errors.ts";
import { aggregateCommands, aggregateOutput } from "./aggregate.ts";
import { explainCommands } from "./explain.ts";
import { collectionCommands } from "./collections.ts";
import type { CommandContext, Handler, Reply } from "./context.ts";
import { checkCommandFields } from "./fields.ts";
import { checkReadConcern } from "./read-concern.ts";
import { findAndModifyCommands } from "./find-and-modify.ts";
import { handshakeCommands, isTransactional, refuseTransaction } from "./handshake.ts";
import { indexCommands } from "./indexes.ts";
import { readCommands } from "./read.ts";
import { refuseViewWrite } from "./views.ts";
import { renameCommands } from "./rename.ts";
import { updateCommands } from "./updates.ts";
import { writeCommands } from "./write.ts";

const HANDLERS = new Map<string, Handler>(
  Object.entries({
    ...handshakeCommands,
    ...readCommands,
    ...aggregateCommands,
    ...writeCommands,
    ...updateCommands,
    ...findAndModifyCommands,
    ...collectionCommands,
    ...renameCommands,
    ...indexCommands,
    ...explainCommands,
  }),
);

/** Commands that never change data: everything else counts as a write for `EngineState.writes`. */
const READS = new Set([
  "find",
  "getMore",
  "killCursors",
  "count",
  "distinct",
  "aggregate",
  "hello",
  "isMaster",
  "ismaster",
  "ping",
  "buildInfo",
  "buildinfo",
  "listIndexes",
  "listCollections",
  "listDatabases",
  "endSessions",
  "explain",
]);

/** Commands a view does not support (it is read-only and has no indexes of its own). */
const VIEW_REFUSED = new Set([
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "createIndexes",
  "dropIndexes",
  "deleteIndexes",
  "listIndexes",
]);

/** Writes that name the one collection they touch as the value of their first key. */
const COLLECTION_WRITES = new Set([
  "insert",
  "update",
  "delete",
  "findAndModify",
  "findandmodify",
  "create",
  "collMod",
  "drop",
  "createIndexes",
  "dropIndexes",
  "deleteIndexes",
]);

/** The collection a write touches, or undefined when it may touch any (dropDatabase, anything unknown). */
function writtenCollection(ctx: CommandContext, name: string): string | undefined {
  if (name === "aggregate") return aggregateOutput(ctx);
  const target = ctx.body[name];
  return COLLECTION_WRITES.has(name) && typeof target === "string" ? target : undefined;
}

/** Counts a finished write. After the change was applied, so a reader that saw it also sees the count move. */
function countWrite<T>(ctx: CommandContext, name: string, reply: T): T {
  ctx.engine.writes.count(ctx.db, writtenCollection(ctx, name));
  return reply;
}

/**
 * Runs a command and always comes back with a reply: any failure (including bugs and mingo
 * rejecting a query) becomes `{ ok: 0, errmsg, code, codeName }` instead of escaping. A command
 * that completes synchronously (every read) answers synchronously, so its reply can be written
 * without a promise and a turn of the microtask queue; only the rest return a promise.
 */
export function dispatch(ctx: CommandContext): Reply | Promise<Reply> {
  const name = firstKey(ctx.body) ?? "";
  try {
    const handler = HANDLERS.get(name);
    if (!handler) throw new CommandError("CommandNotFound", `no such command: '${name}'`);
    if (isTransactional(ctx.body)) refuseTransaction();
    checkCommandFields(name, ctx.body);
    checkReadConcern(ctx.body);
    if (VIEW_REFUSED.has(name) && typeof ctx.body[name] === "string") refuseViewWrite(ctx, ctx.body[name]);
    if (ctx.request.tooLarge && name !== "insert") {
      throw new CommandError("BSONObjectTooLarge", `a document of ${ctx.request.tooLarge} exceeds the maximum size`);
    }
    const reply = handler(ctx);
    const settled = reply instanceof Promise ? reply.then(undefined, errorReply) : reply;
    if (READS.has(name) && !(name === "aggregate" && aggregateOutput(ctx) !== undefined)) return settled;
    return settled instanceof Promise
      ? settled.then((done) => countWrite(ctx, name, done))
      : countWrite(ctx, name, settled);
  } catch (error) {
    return countWrite(ctx, name, errorReply(error));
  }
}
