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
  let tools: EngineTools | undefined;
  try {
    tools = engineToolsFromEnv(env);
  } catch {
    return undefined; // serveProject reports the mistake in one line
  }
  // As openDatabase starts it: see connect.ts.
  const engine = startEngineThread({ dataDir, socket: "private", ...(tools ? { tools } : {}) });
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

/** The embedded engine's TCP port for tools (mongosh, Compass), behind SCRAM-SHA-256 with one user. */
export interface EngineTools {
  host?: string;
  port: number;
  user: string;
  password: string;
}

const TOOLS_VARIABLES = ["MONGOREST_ENGINE_PORT", "MONGOREST_ENGINE_USER", "MONGOREST_ENGINE_PASSWORD"] as const;

/**
 * `MONGOREST_ENGINE_PORT`, `MONGOREST_ENGINE_USER` and `MONGOREST_ENGINE_PASSWORD` (all three
 * or none): the engine's port for tools, on 127.0.0.1. A mistake is a TypeError naming the variable.
 */
export function engineToolsFromEnv(env: Record<string, string | undefined>): EngineTools | undefined {
  const given = TOOLS_VARIABLES.filter((name) => env[name]);
  if (given.length === 0) return undefined;
  const missing = TOOLS_VARIABLES.filter((name) => !env[name]);
  if (missing.length > 0) throw new TypeError(`${missing.join(" and ")} must be set too, to open the engine to tools`);
  const port = Number(env.MONGOREST_ENGINE_PORT);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new TypeError(
      `MONGOREST_ENGINE_PORT must be a port number (1-65535), got ${JSON.stringify(env.MONGOREST_ENGINE_PORT)}`,
    );
  }
  if (env.MONGOREST_ENGINE_PASSWORD!.length < 12) {
    throw new TypeError("MONGOREST_ENGINE_PASSWORD must have at least 12 characters");
  }
  return { port, user: env.MONGOREST_ENGINE_USER!, password: env.MONGOREST_ENGINE_PASSWORD! };
}
