import type { Document } from "bson";
import type { ChangeSink } from "../changes.ts";
import type { Batch, CursorRegistry } from "../cursors.ts";
import type { Catalog } from "../store/catalog.ts";
import type { Ledger } from "../store/ledger.ts";
import { WriteSet } from "../store/write-set.ts";
import type { SessionCache } from "../sessions.ts";
import type { Request, WireLimits } from "../wire/messages.ts";
import type { WriteCounts } from "../write-counter.ts";
import type { Operation } from "../query/interrupts.ts";
import type { LatencyStats } from "./latency.ts";
import type { ServerCounters } from "./server-counters.ts";

/** What the engine reports about itself in statistics (`$collStats`, `$indexStats`, `dbStats`). */
export interface ServerInfo {
  /** `hostname:port`, known once the engine listens. */
  host: string;
  /** The folder of durable data; undefined for an engine in memory. */
  readonly dataDir: string | undefined;
  /** Connections the engine accepts at once. */
  readonly maxConnections: number;
}

/** What commands operate on: the shared state of one engine. */
export interface EngineState {
  readonly catalog: Catalog;
  readonly cursors: CursorRegistry;
  readonly sink: ChangeSink;
  /** Undo records of the writes the sink has not acknowledged yet. */
  readonly ledger: Ledger;
  readonly limits: WireLimits;
  /**
   * Moves after every command that may change data has finished, whatever its outcome, for the
   * collection it names. The process that owns the engine reads it to invalidate caches exactly
   * (see changeCount() and collectionChangeCount()).
   */
  readonly writes: WriteCounts;
  /** Operation latencies, in all and per namespace. */
  readonly latency: LatencyStats;
  /** Connections, bytes and operations so far. */
  readonly counters: ServerCounters;
  /** The logical sessions used recently. */
  readonly sessions: SessionCache;
  readonly server: ServerInfo;
  /** The clock (ms) of time limits and of the slices of long reads (see query/interrupts.ts). */
  readonly clock: () => number;
}

/** One command as the wire hands it to the dispatcher. */
export type CommandInput = Omit<CommandContext, "session" | "operation">;

/** One command invocation. */
export interface CommandContext {
  readonly engine: EngineState;
  readonly request: Request;
  /** Database the command runs against (`$db`). */
  readonly db: string;
  /** The command document; its first key is the command name. */
  readonly body: Document;
  /** Id of the connection, reported by hello. */
  readonly connectionId: number;
  /**
   * The key of the logical session the command runs in, if any: set by the dispatcher once the
   * command's `lsid` was checked, before the command runs.
   */
  session: string | undefined;
  /** The command as it runs: its deadline (`maxTimeMS`) and slices (see query/interrupts.ts). */
  readonly operation: Operation;
}

/** A command's answer: a reply document, or a cursor batch encoded straight to the wire. */
export type Reply = Document | Batch;

/** A command implementation. */
export type Handler = (ctx: CommandContext) => Reply | Promise<Reply>;

/**
 * A fresh set of changes for one command, applied to the engine's catalog as they are made.
 * Undo records are kept only when the sink can refuse them.
 */
export function startWrites(ctx: CommandContext): WriteSet {
  const { catalog, ledger, sink } = ctx.engine;
  return new WriteSet(catalog, sink.mayFail === false ? undefined : ledger);
}

/**
 * Makes a command's changes durable before it is acknowledged. They were applied in memory
 * synchronously, so a read-modify-write never interleaves with others; if the sink refuses
 * them, they are rolled back before the error reaches the client, so no reader goes on seeing
 * a change that a restart would not recover. Every WriteSet must end here.
 */
export async function commit(ctx: CommandContext, writes: WriteSet): Promise<void> {
  if (writes.changes.length > 0) {
    try {
      await ctx.engine.sink.append(writes.changes);
    } catch (error) {
      writes.rollBack();
      throw error;
    }
  }
  writes.settle();
}
