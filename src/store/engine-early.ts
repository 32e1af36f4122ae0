import { join, resolve } from "node:path";
import { type EngineThread, startEngineThread } from "../embedded/thread.ts";

/**
 * Where a project keeps the embedded engine's data: `DATA_DIR`, else `data/` in the project
 * folder. One rule for the engine started early and for the app that takes it over.
 */
export function projectDataDir(env: Record<string, string | undefined>, root = "."): string {
  return env.DATA_DIR || join(root, "data");
}

/** An engine started before the app's modules loaded, on a project's data folder, for `createApp({ earlyEngine })`. */
export interface EarlyEngine {
  /** The data folder it opened (absolute). */
  readonly dataDir: string;
  /** The engine, once its thread recovered the folder; undefined where no thread can run. */
  readonly engine: Promise<EngineThread | undefined>;
}

/**
 * Starts the embedded engine's thread on the project's data folder now, unless `MONGODB_URI`
 * is set. The entry points call this before they import the app: the engine then recovers
 * the data (seconds for a large folder) while the app's modules load, instead of after. They
 * hand what it returns to `runProject({ earlyEngine })`, and {@link openDatabase} takes the
 * engine over when it opens the same folder in a thread. Nothing is kept in module state.
 */
export function startEngineEarly(env: Record<string, string | undefined>, root = "."): EarlyEngine | undefined {
  if (env.MONGODB_URI) return undefined;
  const dataDir = resolve(projectDataDir(env, root));
  const engine = startEngineThread({ dataDir, socket: "private" }); // as openDatabase starts it: see connect.ts
  // A start-up error is reported where the engine is taken over, not as an unhandled rejection.
  engine.catch(() => {});
  return { dataDir, engine };
}

/** The early engine, when it opened `dataDir`. */
export function earlyEngineFor(
  early: EarlyEngine | undefined,
  dataDir: string,
): Promise<EngineThread | undefined> | undefined {
  return early !== undefined && early.dataDir === resolve(dataDir) ? early.engine : undefined;
}
