import type { Document } from "bson";
import { CommandError } from "../errors.ts";
import { SESSION_TIMEOUT_MINUTES } from "../sessions.ts";
import { MAX_WRITE_BATCH } from "./args.ts";
import type { CommandContext, Handler } from "./context.ts";

/** Version reported by buildInfo: the MongoDB release whose behaviour the engine follows. */
export const VERSION = "7.0.0";
/** Wire version of MongoDB 7.0; drivers need at least 9 (and 17+ for modern features). */
export const MAX_WIRE_VERSION = 21;

/**
 * hello / isMaster. The engine presents itself as a writable standalone. There is no
 * `topologyVersion`, so drivers poll instead of opening streaming (exhaust) monitors.
 */
function hello(ctx: CommandContext): Document {
  const { maxBsonObjectSize, maxMessageSizeBytes } = ctx.engine.limits;
  return {
    helloOk: true,
    ismaster: true,
    isWritablePrimary: true,
    maxBsonObjectSize,
    maxMessageSizeBytes,
    maxWriteBatchSize: MAX_WRITE_BATCH,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: SESSION_TIMEOUT_MINUTES,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
}

/** buildInfo. The size limit is the configured one, as in hello: drivers may read either. */
function buildInfo(ctx: CommandContext): Document {
  const [major, minor, patch] = VERSION.split(".").map(Number);
  return {
    version: VERSION,
    versionArray: [major, minor, patch, 0],
    gitVersion: "embedded",
    bits: 64,
    maxBsonObjectSize: ctx.engine.limits.maxBsonObjectSize,
    storageEngines: ["embedded"],
    modules: [],
    ok: 1,
  };
}

/**
 * Answers any command that needs transaction numbers, as a standalone mongod does (it has no
 * oplog to give them meaning): code 20 with the server's own text (service_entry_point_common.cpp).
 */
export function refuseTransaction(): never {
  throw new CommandError("IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos");
}

/**
 * True when a command carries a transaction number or is part of a multi-document
 * transaction: a retryable write (`txnNumber`) is refused like a transaction, as on a
 * standalone. Drivers send neither to a standalone, which this engine presents itself as.
 */
export function isTransactional(body: Document): boolean {
  return body.txnNumber !== undefined || body.startTransaction === true || body.autocommit === false;
}

/** Connection-level and informational commands. */
export const handshakeCommands: Record<string, Handler> = {
  hello,
  isMaster: hello,
  ismaster: hello,
  ping: () => ({ ok: 1 }),
  buildInfo,
  buildinfo: buildInfo,
  commitTransaction: refuseTransaction,
  abortTransaction: refuseTransaction,
};
