import type { Document } from "bson";
import { firstKey, isPlainObject } from "../bson.ts";
import { CommandError, errorReply } from "../errors.ts";
import { aggregateCommands, aggregateOutput } from "./aggregate.ts";
import { explainCommands } from "./explain.ts";
import { collectionCommands } from "./collections.ts";
import type { CommandContext, CommandInput, Handler, Reply } from "./context.ts";
import { checkCommandFields } from "./fields.ts";
import { checkReadConcern } from "./read-concern.ts";
import { findAndModifyCommands } from "./find-and-modify.ts";
import { handshakeCommands, isTransactional, refuseTransaction } from "./handshake.ts";
import { indexCommands } from "./indexes.ts";
import { latencyKind } from "./latency.ts";
import { commandSession } from "../sessions.ts";
import { OP_MSG, OP_QUERY } from "../wire/messages.ts";
import { checkDatabaseName } from "./names.ts";
import { parseMaxTimeMS } from "./max-time.ts";
import { enter, leave, Operation } from "../query/interrupts.ts";
import { sessionCommands } from "./sessions.ts";
import { readCommands } from "./read.ts";
import { refuseViewWrite } from "./views.ts";
import { renameCommands } from "./rename.ts";
import { serverStatusCommands } from "./server-status.ts";
import { statsCommands } from "./stats.ts";
import { validateCommands } from "./validate.ts";
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
    ...statsCommands,
    ...serverStatusCommands,
    ...validateCommands,
    ...sessionCommands,
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
  "startSession",
  "refreshSessions",
  "endSessions",
  "killSessions",
  "killAllSessions",
  "killAllSessionsByPattern",
  "explain",
  "dbStats",
  "dbstats",
  "collStats",
  "collstats",
  "serverStatus",
  "serverstatus",
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
  "validate", // counted as a write only when it repaired (see countWrite)
]);

/** The collection a write touches, or undefined when it may touch any (dropDatabase, anything unknown). */
function writtenCollection(ctx: CommandContext, name: string): string | undefined {
  if (name === "aggregate") return aggregateOutput(ctx);
  const target = ctx.body[name];
  return COLLECTION_WRITES.has(name) && typeof target === "string" ? target : undefined;
}

/**
 * Counts a finished write. After the change was applied, so a reader that saw it also sees the
 * count move. A validate counts only when it repaired: queries through a rebuilt index may answer
 * differently, and nothing else it does changes what a read sees.
 */
function countWrite<T>(ctx: CommandContext, name: string, reply: T): T {
  if (name === "validate" && (reply as Document | undefined)?.repaired !== true) return reply;
  ctx.engine.writes.count(ctx.db, writtenCollection(ctx, name));
  return reply;
}

/**
 * Commands whose latency counts against the collection their first field names (getMore: its
 * `collection`): the writes that name one collection (but `drop`, which forgets it), and the reads.
 */
const TIMED = new Set([
  ...[...COLLECTION_WRITES].filter((name) => name !== "drop"),
  "find",
  "getMore",
  "aggregate",
  "count",
  "distinct",
  "listIndexes",
  "collStats",
  "collstats",
  "explain",
]);

/**
 * The namespace a command's latency counts against, if any (an explained command's collection
 * for explain). Only a collection or view that exists once the command is done: MongoDB also
 * keeps latencies for names that were never created, which would let a client grow the engine's
 * memory without bound by naming new ones.
 */
function timedNamespace(ctx: CommandInput, name: string): string | undefined {
  if (!TIMED.has(name)) return undefined;
  const { body } = ctx;
  const explained = name === "explain" && isPlainObject(body.explain) ? body.explain : undefined;
  const target = name === "getMore" ? body.collection : explained ? explained[firstKey(explained) ?? ""] : body[name];
  if (typeof target !== "string" || ctx.engine.catalog.get(ctx.db, target) === undefined) return undefined;
  return `${ctx.db}.${target}`;
}

/**
 * Runs a command (see {@link run}), counts it for serverStatus and its latency against the
 * collection it names for `$collStats`; a dropped collection's or database's latencies are
 * forgotten.
 */
export function dispatch(ctx: CommandInput): Reply | Promise<Reply> {
  const started = performance.now();
  const name = firstKey(ctx.body) ?? "";
  const { latency, counters } = ctx.engine;
  counters.connections.active++;
  const reply = run(ctx, name);
  const done = <T>(settled: T): T => {
    counters.connections.active--;
    if (HANDLERS.has(name)) counters.countCommand(ctx.request, name, settled as Document);
    counters.countOutcome(settled);
    const ns = timedNamespace(ctx, name);
    latency.record(ns, latencyKind(name), (performance.now() - started) * 1000);
    if (name === "drop" && typeof ctx.body.drop === "string") latency.forget(`${ctx.db}.${ctx.body.drop}`);
    else if (name === "dropDatabase") latency.forgetDatabase(ctx.db);
    else if (name === "renameCollection") {
      // Both names start afresh: the source is gone, and the target is another collection now.
      for (const ns of [ctx.body.renameCollection, ctx.body.to]) if (typeof ns === "string") latency.forget(ns);
    }
    return settled;
  };
  return reply instanceof Promise ? reply.then(done) : done(reply);
}

/**
 * The session a command runs in, marked used (MongoDB's "vivify"); undefined outside a session.
 * A malformed `lsid` fails the command, as in MongoDB.
 */
function useSession(input: CommandInput): string | undefined {
  const session = commandSession(input.body);
  return session === undefined ? undefined : input.engine.sessions.touch(session);
}

/**
 * Runs a command and always comes back with a reply: any failure (including bugs and mingo
 * rejecting a query) becomes `{ ok: 0, errmsg, code, codeName }` instead of escaping. A command
 * that completes synchronously (every read) answers synchronously, so its reply can be written
 * without a promise and a turn of the microtask queue; only the rest return a promise.
 */
function run(input: CommandInput, name: string): Reply | Promise<Reply> {
  // One literal of a fixed shape, not a spread of `input`: every command makes one.
  const ctx: CommandContext = {
    engine: input.engine,
    request: input.request,
    db: input.db,
    body: input.body,
    connectionId: input.connectionId,
    session: undefined,
    operation: new Operation(input.engine.clock),
  };
  try {
    checkRequest(input, name);
    const handler = HANDLERS.get(name);
    if (!handler) throw new CommandError("CommandNotFound", `no such command: '${name}'`);
    ctx.session = useSession(input);
    if (isTransactional(ctx.body)) refuseTransaction();
    checkCommandFields(name, ctx.body);
    checkReadConcern(ctx.body);
    if (VIEW_REFUSED.has(name) && typeof ctx.body[name] === "string") refuseViewWrite(ctx, ctx.body[name]);
    if (ctx.request.tooLarge && name !== "insert") {
      throw new CommandError("BSONObjectTooLarge", `a document of ${ctx.request.tooLarge} exceeds the maximum size`);
    }
    // getMore's own maxTimeMS (an awaitData timeout) is refused by getMore itself: the cursor's time goes on.
    const maxTimeMS = parseMaxTimeMS(name, ctx.body);
    if (maxTimeMS > 0 && name !== "getMore") ctx.operation.limitTo(maxTimeMS);
    let reply: Reply | Promise<Reply>;
    const previous = enter(ctx.operation);
    try {
      reply = handler(ctx);
    } finally {
      leave(previous);
    }
    const settled = reply instanceof Promise ? reply.then(undefined, errorReply) : reply;
    if (READS.has(name) && !(name === "aggregate" && aggregateOutput(ctx) !== undefined)) return settled;
    return settled instanceof Promise
      ? settled.then((done) => countWrite(ctx, name, done))
      : countWrite(ctx, name, settled);
  } catch (error) {
    const reply = errorReply(error);
    try {
      return countWrite(ctx, name, reply);
    } catch {
      // Counting looks into the command; one too malformed for that changed nothing anyway.
      return reply;
    }
  }
}

/** Commands a client may still send over the legacy OP_QUERY: the handshake only, as in MongoDB 7.0. */
const OP_QUERY_COMMANDS = new Set(["hello", "isMaster", "ismaster"]);

/** Refuses what MongoDB refuses before looking at the command: OP_QUERY beyond the handshake, a missing or invalid `$db`. */
function checkRequest(input: CommandInput, name: string): void {
  const { request } = input;
  if (request.opCode === OP_QUERY && !OP_QUERY_COMMANDS.has(name)) {
    throw new CommandError(
      "UnsupportedOpQueryCommand",
      `Unsupported OP_QUERY command: ${name}. The client driver may require an upgrade. For more details see https://dochub.mongodb.org/core/legacy-opcode-removal`,
    );
  }
  if (request.opCode === OP_MSG && typeof input.body.$db !== "string") {
    throw new CommandError("Location40571", "OP_MSG requests require a $db argument");
  }
  checkDatabaseName(input.db);
}
