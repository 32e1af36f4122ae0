import type { Document } from "bson";
import type { Change, ChangeSink } from "../changes.ts";
import type { Batch, CursorRegistry } from "../cursors.ts";
import type { Catalog } from "../store/catalog.ts";
import type { Request, WireLimits } from "../wire/messages.ts";

/** What commands operate on: the shared state of one engine. */
export interface EngineState {
  readonly catalog: Catalog;
  readonly cursors: CursorRegistry;
  readonly sink: ChangeSink;
  readonly limits: WireLimits;
}

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
}

/** A command's answer: a reply document, or a cursor batch encoded straight to the wire. */
export type Reply = Document | Batch;

/** A command implementation. */
export type Handler = (ctx: CommandContext) => Reply | Promise<Reply>;

/**
 * Makes a write durable before it is acknowledged. Called after the in-memory change was
 * applied synchronously, so the read-modify-write itself never interleaves with others.
 */
export async function commit(ctx: CommandContext, changes: Change[]): Promise<void> {
  if (changes.length > 0) await ctx.engine.sink.append(changes);
}
