import { join, resolve } from "node:path";
import { type EngineThread, startEngineThread } from "../embedded/thread.ts";

/**
 * Where a project keeps the embedded engine's data: `DATA_DIR`, else `data/` in the project
 * folder. One rule for the engine started early and for the app that takes it over.
 */
export function projectDataDir(env: Record<string, string | undefined>, root = "."): string {
  return env.DATA_DIR || join(root, "data");
}

let early: { dataDir: string; engine: Promise<EngineThread | undefined> } | undefined;

/**
 * Starts the embedded engine's thread on the project's data folder now, unless `MONGODB_URI`
 * is set. The entry points call this before they import the app: the engine then recovers
 * the data (seconds for a large folder) while the app's modules load, instead of after.
 * {@link openDatabase} takes the engine over when it opens the same folder in a thread.
 */
export function startEngineEarly(env: Record<string, string | undefined>, root = "."): void {
  if (early !== undefined || env.MONGODB_URI) return;
  const dataDir = resolve(projectDataDir(env, root));
  const engine = startEngineThread({ dataDir, socket: "private" }); // as openDatabase starts it: see connect.ts
  // A start-up error is reported where the engine is taken over, not as an unhandled rejection.
  engine.catch(() => {});
  early = { dataDir, engine };
}

/** The engine started early on `dataDir`, if any, handed over once. */
export function takeEarlyEngine(dataDir: string): Promise<EngineThread | undefined> | undefined {
  if (early === undefined || early.dataDir !== resolve(dataDir)) return undefined;
  const { engine } = early;
  early = undefined;
  return engine;
}
