/**
 * The app's side of engines running in a worker thread (./thread-worker.ts). One thread per
 * process hosts every engine started this way, so its modules load once (a process that opens
 * many apps, like a test file, pays that once). The thread is started on first use, holds the
 * process open only while an engine runs in it, and reports each engine's port or start-up
 * error; each engine's write counter lives in memory shared with this thread.
 */
import { Worker } from "node:worker_threads";
import { SharedWriteCounter } from "./write-counter.ts";

/** What the app's thread asks the engine thread. */
export type ThreadOrder = { id: number; start: { options: object; sharedWrites: SharedArrayBuffer } } | {
  id: number;
  close: true;
};

/** What the engine thread answers, to the order with the same id. */
export type ThreadReport =
  | { id: number; ready: { uri: string; port: number } }
  | { id: number; closed: true }
  | { id: number; failed: ErrorReport };

/** An error as it crosses the threads: what the app shows and tests check of it. */
export interface ErrorReport {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

/** An engine in the engine thread as the app sees it: the members of an `EmbeddedEngine`. */
export interface EngineThread {
  uri: string;
  port: number;
  close(): Promise<void>;
  changeCount(): number;
  collectionChangeCount(db: string, collection: string): number;
}

/** Built-in error classes by name, so a revived TypeError is still `instanceof TypeError` (the CLI tells them apart). */
const ERROR_CLASSES: Record<string, ErrorConstructor> = {
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  URIError,
};

/** Rebuilds an error of the engine thread in this one, with the same class, name, message and code. */
function revive(report: ErrorReport): Error {
  const error = new (ERROR_CLASSES[report.name] ?? Error)(report.message) as Error & { code?: string };
  error.name = report.name;
  if (report.code !== undefined) error.code = report.code;
  if (report.stack !== undefined) error.stack = report.stack;
  return error;
}

/** The worker's module: ./thread-worker.ts next to this file in the sources, .js in the compiled package. */
function workerModule(): URL {
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return new URL(`./thread-worker${extension}`, import.meta.url);
}

/**
 * Node 20's workers do not inherit the module hooks that let the app's thread load TypeScript
 * (tsx's `--import`), so a worker started from the sources on Node registers tsx itself first.
 */
const TSX_BOOTSTRAP = `const { workerData } = require("node:worker_threads");
import(workerData.tsx).then((tsx) => tsx.register()).then(() => import(workerData.entry));`;

/**
 * The engine thread's young generation, in MiB (V8 gives a worker 48). Recovery allocates in
 * bursts (a snapshot's records, index builds) and the young space grew to hold them, which the
 * process kept: at a million users, RSS at "Listening" went from 423-451 MiB to 413, and
 * settled from 413-418 to 396, with no change in `bench-traffic.ts`'s throughput (0.043-0.045
 * of bare against 0.042-0.044). 8 MiB saved more but cost throughput (0.038).
 */
const ENGINE_YOUNG_GENERATION_MB = 16;

/** Starts the worker; undefined when this runtime cannot load the worker's module. */
function startWorker(): Worker | undefined {
  const entry = workerModule();
  if ("Deno" in globalThis) return new Worker(entry);
  const resourceLimits = { maxYoungGenerationSizeMb: ENGINE_YOUNG_GENERATION_MB };
  if (!entry.pathname.endsWith(".ts")) return new Worker(entry, { resourceLimits });
  let tsx: string;
  try {
    tsx = import.meta.resolve("tsx/esm/api");
  } catch {
    return undefined;
  }
  return new Worker(TSX_BOOTSTRAP, { eval: true, workerData: { tsx, entry: entry.href }, resourceLimits });
}

/** The engine thread: orders in flight by id, and how many engines run in it. */
class EngineHost {
  readonly #pending = new Map<number, { resolve(report: ThreadReport): void; reject(error: unknown): void }>();
  #nextId = 1;
  /** Engines starting or started, and not closed: the thread holds the process open while there are any. */
  #running = 0;
  /** Engines that reported ready and are not closed: losing the thread with any of them is fatal. */
  #serving = 0;
  #failed = false;

  constructor(readonly worker: Worker, private readonly ended: () => void) {
    worker.unref();
    worker.on("message", (report: ThreadReport) => {
      const waiting = this.#pending.get(report.id);
      this.#pending.delete(report.id);
      waiting?.resolve(report);
    });
    worker.on("error", (error) => this.#fail(error));
    worker.on("exit", (code) => this.#fail(new Error(`the embedded engine's thread exited (${code})`)));
  }

  /** A new engine's id: its start and its close are the orders with that id. */
  newId(): number {
    return this.#nextId++;
  }

  /** Sends `order` and resolves with the report answering it. */
  ask(order: ThreadOrder): Promise<ThreadReport> {
    return new Promise<ThreadReport>((resolve, reject) => {
      this.#pending.set(order.id, { resolve, reject });
      this.worker.postMessage(order);
    });
  }

  /** Keeps the process open while at least one engine runs, as an engine in this thread would. */
  running(change: 1 | -1): void {
    this.#running += change;
    if (this.#running === 1 && change === 1) this.worker.ref();
    if (this.#running === 0) this.worker.unref();
  }

  /** Counts engines that started (1) or closed (-1). */
  serving(change: 1 | -1): void {
    this.#serving += change;
  }

  #fail(error: unknown): void {
    if (this.#failed) return;
    this.#failed = true;
    this.ended();
    for (const waiting of this.#pending.values()) waiting.reject(error);
    this.#pending.clear();
    // An engine that was serving is gone: as fatal as an uncaught error in an engine in this
    // thread. One still starting only fails its start.
    if (this.#serving > 0) {
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

let host: EngineHost | undefined;

function engineHost(): EngineHost | undefined {
  if (host) return host;
  const worker = startWorker();
  if (!worker) return undefined;
  const started: EngineHost = new EngineHost(worker, () => {
    if (host === started) host = undefined;
  });
  return host = started;
}

/**
 * Starts an embedded engine with `options` (structured-cloneable: no sink) in the engine thread;
 * resolves once it accepts connections, or rejects with the engine's own start-up error.
 * Resolves to undefined, starting nothing, when the worker's module cannot be loaded here
 * (TypeScript sources on Node without tsx installed).
 */
export async function startEngineThread(options: object): Promise<EngineThread | undefined> {
  const engines = engineHost();
  if (!engines) return undefined;
  const writes = new SharedWriteCounter();
  const id = engines.newId();
  engines.running(1);
  const report = await engines.ask({ id, start: { options, sharedWrites: writes.memory } }).catch((error) => {
    engines.running(-1);
    throw error;
  });
  if (!("ready" in report)) {
    engines.running(-1);
    throw "failed" in report ? revive(report.failed) : new Error("the embedded engine did not start");
  }
  engines.serving(1);
  let closing: Promise<void> | undefined;
  return {
    ...report.ready,
    changeCount: () => writes.total(),
    collectionChangeCount: (db, collection) => writes.of(db, collection),
    close() {
      if (!closing) {
        engines.serving(-1);
        closing = engines.ask({ id, close: true }).then((closed) => {
          engines.running(-1);
          if ("failed" in closed) throw revive(closed.failed);
        });
      }
      return closing;
    },
  };
}
