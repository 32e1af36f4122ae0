/**
 * The embedded engine: a MongoDB-wire-compatible server running in this process, so the
 * framework can use the official driver without a MongoDB installation.
 */
import { hostname, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type ChangeSink, memorySink } from "./changes.ts";
import type { EngineState } from "./commands/context.ts";
import { LatencyStats } from "./commands/latency.ts";
import { ServerCounters } from "./commands/server-counters.ts";
import { CursorRegistry } from "./cursors.ts";
import { collectGarbageNow } from "./garbage.ts";
import { Catalog } from "./store/catalog.ts";
import type { SnapshotLoaded } from "./durability/mod.ts";
import { Ledger } from "./store/ledger.ts";
import { SessionCache } from "./sessions.ts";
import { type ConnectionLimits, resolveConnectionLimits } from "./wire/limits.ts";
import { listen } from "./wire/server.ts";
import { scramKeys } from "./wire/scram.ts";
import { startEngineThread } from "./thread.ts";
import { SharedWriteCounter, WriteCounter } from "./write-counter.ts";
import { startTtlMonitor, type TtlOptions } from "./ttl.ts";

/**
 * Options of {@link startEmbeddedEngine}. The connection limits (`maxConnections` 256,
 * `idleTimeoutMS` 10 min, `frameTimeoutMS` 30 s, `maxUnsentReplyBytes` 1 MiB) are
 * documented on {@link ConnectionLimits}.
 */
export interface EmbeddedEngineOptions extends Partial<ConnectionLimits> {
  /** Folder for durable data; without it the engine is in memory. */
  dataDir?: string;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** TCP port (default 0: a free port). */
  port?: number;
  /**
   * Listen on a Unix socket instead of TCP: its path, or `"private"` for a socket in a new
   * folder only this user may enter (0700, removed on close), which is how the app starts the
   * engine, so another local user cannot reach the data through it. `host` and `port` are then
   * unused.
   */
  socket?: string;
  /**
   * Also open a TCP port to tools (mongosh, Compass) that only one user may use, after
   * SCRAM-SHA-256: `{ port, user, password }` (host default 127.0.0.1, port 0 a free one). The
   * app's own socket needs no credential; this port serves the same data.
   */
  tools?: { host?: string; port?: number; user: string; password: string };
  /** When the journal in `dataDir` is folded into a snapshot (see DurableStoreOptions). */
  compaction?: { compactThreshold?: number; closeCompactThreshold?: number };
  /** Largest document accepted and announced (default 16 MiB). */
  maxBsonObjectSize?: number;
  /** Largest wire message accepted and announced (default 48 MB). */
  maxMessageSizeBytes?: number;
  /**
   * Internal, for tests: where changes go instead of memory or `dataDir` (e.g. a sink that
   * fails, to exercise the rollback of writes it refuses).
   */
  sink?: ChangeSink;
  /**
   * Run the engine in a worker thread of its own (default false: in this thread). The driver
   * reaches it over its socket as before; only start-up, close and the write counter (in shared
   * memory) cross the threads, so the app and the engine use two cores. Not with `sink`. From the
   * TypeScript sources on Node this needs tsx installed; without it the engine runs in this thread.
   */
  thread?: boolean;
  /** Internal, for the engine thread: count writes in this memory, shared with the app's thread. */
  sharedWrites?: SharedArrayBuffer;
  /**
   * The TTL monitor (see ttl.ts): how often it deletes expired documents (default every 60 s).
   * Its `now` and `onPass` are for tests, in this thread only.
   */
  ttl?: TtlOptions;
  /**
   * For tests, in this thread only: the clock (ms) that `maxTimeMS` deadlines and the slices of
   * long reads are measured on (default `performance.now`), so a test can make a command
   * expire, or a read yield, without waiting.
   */
  clock?: () => number;
  /**
   * For tests, in this thread only: how a long read lets other commands run between two of its
   * slices (default: one turn of the event loop), so a test can act while a read is paused.
   */
  nextTurn?: () => Promise<void>;
}

export type { ConnectionLimits } from "./wire/limits.ts";
export { DEFAULT_CONNECTION_LIMITS } from "./wire/limits.ts";

/** A running engine. */
export interface EmbeddedEngine {
  /** Connection string for the driver. */
  uri: string;
  port: number;
  /** With `tools`: where that port listens. */
  tools?: { host: string; port: number };
  /** Closes the server, every connection, and the durable store. */
  close(): Promise<void>;
  /**
   * How many commands that may change data have finished. Data changes only through this engine,
   * so while the count stands still every read answers as before: exact cache invalidation
   * for the process that owns the engine.
   */
  changeCount(): number;
  /**
   * A number that moves whenever a command that may have changed `db.collection` finishes, and
   * stands still otherwise: what was read from that collection stays valid while it stands still.
   */
  collectionChangeCount(db: string, collection: string): number;
}

async function openSink(catalog: Catalog, options: EmbeddedEngineOptions): Promise<ChangeSink> {
  const { dataDir } = options;
  if (!dataDir) return memorySink;
  // Loaded only when needed, so the in-memory engine does not depend on the durability code.
  const durability = await import("./durability/mod.ts");
  const store = await durability.openDurableStore(dataDir, () => catalog.dumpEncoded(), options.compaction);
  try {
    await store.recover((change) => catalog.applyChange(change), (loaded) => {
      if (buildBeforeJournal(loaded)) catalog.finishRecovery();
    });
    catalog.finishRecovery();
  } catch (error) {
    await store.close();
    throw error;
  }
  await collectGarbageNow();
  return store;
}

/**
 * Whether recovery should build the indexes right after the snapshot (from its saved orders)
 * and have the journal's writes maintain them one by one, rather than build them after the
 * journal (from the saved orders merged with what the journal wrote, see SavedOrders).
 * Measured at a million users with four indexes and a 237 MB snapshot: maintaining costs
 * ~0.35 s per MB of journal, merging ~1.4 s plus ~0.03 s per MB; they break even near 1/56 of
 * the snapshot, and 1/64 stays under it.
 */
function buildBeforeJournal({ snapshotBytes, journalBytes }: SnapshotLoaded): boolean {
  return snapshotBytes > 0 && journalBytes * 64 <= snapshotBytes;
}

/** Entries of saved index orders checked per turn of the event loop after start-up: a millisecond or two of work. */
const ORDER_CHECK_SLICE = 1024;
/** How long after start-up the check begins: the app's own start-up commands come first. */
const ORDER_CHECK_DELAY_MS = 2000;

/**
 * Checks the index orders recovery loaded without reading their keys (see
 * OrderedIndex.checkSavedOrder), a slice per turn of the event loop, so start-up does not
 * wait for it and commands run in between. Returns a function that stops it.
 */
function checkOrdersInBackground(catalog: Catalog): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const step = () => {
    timer = undefined;
    try {
      const { more, resorted } = catalog.checkSavedOrders(ORDER_CHECK_SLICE);
      for (const name of resorted) {
        console.warn(
          `mongorest embedded engine: the saved order of index ${name} did not fit its documents; sorted it.`,
        );
      }
      if (more) timer = setTimeout(step, 0);
    } catch (error) {
      // A check that fails must not take the engine down: the indexes stay as recovery built them.
      console.warn(`mongorest embedded engine: checking saved index orders failed: ${String(error)}`);
    }
  };
  timer = setTimeout(step, ORDER_CHECK_DELAY_MS);
  return () => clearTimeout(timer);
}

/** The tools port (`options.tools`), with every connection authenticated by SCRAM-SHA-256. */
async function toolsServer(engine: EngineState, options: EmbeddedEngineOptions, limits: ConnectionLimits) {
  const tools = options.tools;
  if (tools === undefined) return undefined;
  if (
    typeof tools.user !== "string" || tools.user === "" || typeof tools.password !== "string" ||
    tools.password.length < 12
  ) {
    throw new TypeError("the engine's tools port needs a user and a password of at least 12 characters");
  }
  const host = tools.host ?? "127.0.0.1";
  const keys = scramKeys({ user: tools.user, password: tools.password });
  return { host, server: await listen(engine, { host, port: tools.port ?? 0 }, limits, keys) };
}

/** The Unix socket to listen on: `path`, or for `"private"` one in a new 0700 folder, removed with it. */
function socketPath(option: string): { path: string; remove(): void } {
  if (option !== "private") return { path: option, remove: () => rmSync(option, { force: true }) };
  // mkdtemp makes the folder 0700: only this user can reach a socket inside it, whatever its own mode.
  const folder = mkdtempSync(join(tmpdir(), "mongorest-engine-"));
  return { path: join(folder, "engine.sock"), remove: () => rmSync(folder, { recursive: true, force: true }) };
}

function counterFor(options: EmbeddedEngineOptions): WriteCounter | SharedWriteCounter {
  return options.sharedWrites ? new SharedWriteCounter(options.sharedWrites) : new WriteCounter();
}

/** Starts an engine listening on a loopback port; resolves once it accepts connections. */
export async function startEmbeddedEngine(options: EmbeddedEngineOptions = {}): Promise<EmbeddedEngine> {
  if (options.thread) {
    if (options.sink) throw new TypeError("the embedded engine takes a sink only in this thread (thread: false)");
    if (options.ttl?.now || options.ttl?.onPass) {
      throw new TypeError("the embedded engine takes ttl.now and ttl.onPass only in this thread (thread: false)");
    }
    if (options.clock || options.nextTurn) {
      throw new TypeError("the embedded engine takes clock and nextTurn only in this thread (thread: false)");
    }
    const { thread: _thread, ...inWorker } = options;
    const threaded = await startEngineThread(inWorker);
    if (threaded) return threaded;
  }
  const limits = {
    maxBsonObjectSize: options.maxBsonObjectSize ?? 16 * 1024 * 1024,
    maxMessageSizeBytes: options.maxMessageSizeBytes ?? 48_000_000,
  };
  const connectionLimits = resolveConnectionLimits(options);
  const catalog = new Catalog();
  const sink = options.sink ?? (await openSink(catalog, options));
  const cursors = new CursorRegistry(limits.maxBsonObjectSize, undefined, undefined, options.nextTurn);
  const engine: EngineState = {
    catalog,
    cursors,
    sink,
    ledger: new Ledger(),
    limits,
    writes: counterFor(options),
    latency: new LatencyStats(),
    counters: new ServerCounters(),
    sessions: new SessionCache(),
    server: { host: "", dataDir: options.dataDir, maxConnections: connectionLimits.maxConnections },
    clock: options.clock ?? (() => performance.now()),
  };
  const host = options.host ?? "127.0.0.1";
  const socket = options.socket === undefined ? undefined : socketPath(options.socket);
  let server;
  try {
    server = await listen(engine, socket ?? { host, port: options.port ?? 0 }, connectionLimits);
  } catch (error) {
    socket?.remove();
    await sink.close();
    throw error;
  }
  let tools;
  try {
    tools = await toolsServer(engine, options, connectionLimits);
  } catch (error) {
    await server.close();
    socket?.remove();
    await sink.close();
    throw error;
  }
  // As MongoDB names itself in statistics: the machine's name, not the interface listened on.
  engine.server.host = `${hostname()}:${server.port}`;
  cursors.startSweeper();
  // A session that expires takes its cursors with it, `noCursorTimeout` ones included.
  engine.sessions.startSweeper((keys) => cursors.killSessions(keys));
  const stopChecks = checkOrdersInBackground(catalog);
  const stopTtl = startTtlMonitor(engine, options.ttl);
  const hostPart = host.includes(":") ? `[${host}]` : host;
  const where = socket ? encodeURIComponent(socket.path) : `${hostPart}:${server.port}`;
  return {
    uri: `mongodb://${where}/?directConnection=true`,
    port: server.port,
    ...(tools ? { tools: { host: tools.host, port: tools.server.port } } : {}),
    async close() {
      stopChecks();
      await stopTtl();
      cursors.close();
      engine.sessions.close();
      await tools?.server.close();
      await server.close();
      socket?.remove();
      await sink.close();
    },
    changeCount: () => engine.writes.total(),
    collectionChangeCount: (db, collection) => engine.writes.of(db, collection),
  };
}
