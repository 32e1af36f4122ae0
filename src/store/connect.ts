import { type Db, MongoClient, type MongoClientOptions } from "mongodb";
import { type EngineThread, startEngineThread } from "../embedded/thread.ts";
import { StartupError } from "../errors.ts";
import { type EarlyEngine, earlyEngineFor, type EngineTools } from "./engine-early.ts";

/** Where the data lives: a MongoDB URI, or the embedded engine (in memory, or in `dataDir`). */
export interface DatabaseOptions {
  /** A MongoDB connection string. Unset means: start the embedded engine. */
  uri?: string;
  /** Folder for the embedded engine's data. Unset means in memory. Ignored with `uri`. */
  dataDir?: string;
  /**
   * Run the embedded engine in a worker thread of its own (default true), as mongod runs beside
   * the app: the app and the engine then use two cores. False keeps it in the app's thread.
   * Ignored with `uri`.
   */
  engineThread?: boolean;
  /** Database name; defaults to the one in the URI, else "app". */
  dbName?: string;
  /** Passed to the MongoClient (e.g. `{ monitorCommands: true }`). */
  clientOptions?: MongoClientOptions;
  /**
   * An engine the entry point started before loading the app (`startEngineEarly`), taken over
   * when it opened this `dataDir` in a thread; otherwise ignored (and then closed).
   */
  earlyEngine?: EarlyEngine;
  /**
   * Open the embedded engine to tools too (mongosh, Compass): a TCP port on `host` (default
   * 127.0.0.1) behind SCRAM-SHA-256 with this one user. Ignored with `uri`.
   */
  engineTools?: EngineTools;
}

/** An open connection. `close()` also stops the embedded engine when one was started. */
export interface Database {
  client: MongoClient;
  db: Db;
  close(): Promise<void>;
  /** The embedded engine's write counter; absent on MongoDB, where other processes may write. */
  changeCount?: () => number;
  /** The embedded engine's write counter for one collection of `db`; absent on MongoDB. */
  collectionChangeCount?: (collection: string) => number;
}

function databaseName(uri: string, explicit: string | undefined): string | undefined {
  if (explicit) return explicit;
  // Read off the text, not through URL: a Unix socket's host (`%2Ftmp%2Fm.sock`) is no URL host.
  const path = /^mongodb(?:\+srv)?:\/\/[^/?]*\/?([^?]*)/.exec(uri)?.[1] ?? "";
  return path === "" ? "app" : undefined;
}

/**
 * Starts the embedded engine. Its modules are loaded only now, and only into this thread:
 * with the engine in a thread of its own (the default), the app's thread never loads the
 * engine's query and storage code, which saved memory and start-up time.
 */
async function startEngine(dataDir: string | undefined, thread: boolean, tools?: EngineTools): Promise<EngineThread> {
  // A private Unix socket, not a TCP port: no other local user can reach the data through it.
  const options = { dataDir, socket: "private", ...(tools ? { tools } : {}) };
  const threaded = thread ? await startEngineThread(options) : undefined;
  if (threaded) return threaded;
  const { startEmbeddedEngine } = await import("../embedded/mod.ts");
  return startEmbeddedEngine(options);
}

/** The engine started early on this folder if there is one, else a new one. */
async function embeddedEngine(options: DatabaseOptions, thread: boolean): Promise<EngineThread> {
  const { dataDir } = options;
  try {
    const early = thread && dataDir ? earlyEngineFor(options.earlyEngine, dataDir) : undefined;
    return (await early) ?? await startEngine(dataDir, thread, options.engineTools);
  } catch (error) {
    // A held, damaged or unreadable data folder: the engine's message says what to do.
    throw new StartupError(`the embedded engine cannot start: ${messageOf(error)}`, { cause: error });
  }
}

/** A client for the user's URI; a malformed one (or bad options) is a start-up error naming what is wrong. */
function clientFor(uri: string, options: MongoClientOptions | undefined): MongoClient {
  try {
    return new MongoClient(uri, options);
  } catch (error) {
    throw new StartupError(`the MongoDB URI or client options are not valid: ${messageOf(error)}`, { cause: error });
  }
}

/** The URI's hosts without credentials or options, for messages and logs. */
function hostsOf(uri: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:[^@/]*@)?([^/?]*)/.exec(uri);
  return match ? match[1] + match[2] : "the configured URI";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Connects the driver to MongoDB, starting the embedded engine first when no URI is given. */
export async function openDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const thread = options.engineThread ?? true;
  const early = options.earlyEngine;
  // An early engine this app does not take (a URI, another folder, no thread) is closed, not left holding its folder.
  if (early && (options.uri || !thread || !options.dataDir || !earlyEngineFor(early, options.dataDir))) {
    early.engine.then((unused) => unused?.close(), () => {});
  }
  const engine = options.uri ? null : await embeddedEngine(options, thread);
  const uri = options.uri ?? engine!.uri;
  // The engine closes connections idle for 10 minutes; the pool lets them go after one, so it
  // never picks a connection the engine is closing.
  const client = engine
    ? new MongoClient(uri, { maxIdleTimeMS: 60_000, ...options.clientOptions })
    : clientFor(uri, options.clientOptions);
  try {
    await client.connect();
  } catch (error) {
    await engine?.close();
    throw engine
      ? error
      : new StartupError(`cannot connect to MongoDB at ${hostsOf(uri)}: ${messageOf(error)}`, { cause: error });
  }
  const db = client.db(databaseName(uri, options.dbName));
  return {
    client,
    changeCount: engine?.changeCount,
    collectionChangeCount: engine
      ? (collection) => engine.collectionChangeCount(db.databaseName, collection)
      : undefined,
    db,
    async close() {
      await client.close();
      await engine?.close();
    },
  };
}
