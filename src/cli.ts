/**
 * The app a project folder describes: `npx mongorest` and the example's `npm start` both run
 * {@link serveProject}. It serves `models/` and `hooks/` of a folder on HOST:PORT, reading the
 * same environment either way, and shuts down gracefully on SIGINT and SIGTERM.
 */

// First, on Node: keeps node's tick records on V8's fast path (see adapters/node/tick-shape.ts).
import "./adapters/node/tick-shape.ts";
import process from "node:process";
import { join } from "node:path";
import { listen, type RunningServer } from "./adapters/serve.ts";
import { type App, createApp } from "./app.ts";
import { StartupError } from "./errors.ts";
import { defaultErrorHandler } from "./http/errors.ts";
import { loadConfig, loadHooks, loadModels } from "./loader.ts";
import { type EarlyEngine, engineToolsFromEnv, projectDataDir } from "./store/engine-early.ts";
import { handleShutdownSignals } from "./http/shutdown.ts";
import { timeoutsFromEnv } from "./http/timeouts.ts";
import { configureLogging, loggingFromEnv } from "./service/logging.ts";

export { loadHooks, loadModels } from "./loader.ts";

/** Where the project is and what the environment says. */
export interface ProjectOptions {
  /** The project folder holding `models/`, `hooks/` and `mongorest.config.*` (default: the current folder). */
  root?: string;
  /** PORT, HOST, MONGODB_URI, DATA_DIR, NODE_ENV (default: `process.env`). */
  env?: Record<string, string | undefined>;
  /** What `startEngineEarly` returned, when the entry point started the engine before loading the app. */
  earlyEngine?: EarlyEngine;
}

/** A served project: its app and server, and the graceful stop the signals trigger. */
export interface ServedProject {
  app: App;
  server: RunningServer;
  /** Finishes in-flight requests, then closes the database. */
  stop(): Promise<void>;
}

/**
 * Loads the project's models and hooks, connects, and serves; a broken project, or a bad
 * timeout variable, throws one clear TypeError; a busy port, a held data folder or an
 * unreachable MONGODB_URI throws a {@link StartupError}.
 */
export async function serveProject(options: ProjectOptions = {}): Promise<ServedProject> {
  const root = options.root ?? ".";
  const env = options.env ?? process.env;
  const timeouts = timeoutsFromEnv(env);
  const engineTools = engineToolsFromEnv(env);
  // One line per request: JSON in production, readable otherwise; LOG_LEVEL sets the level.
  await configureLogging(loggingFromEnv(env));
  const models = await loadModels(join(root, "models"));
  const { file, config } = await loadConfig(root);
  const app = await createApp({
    ...config,
    models,
    hooks: await loadHooks(join(root, "hooks"), models),
    uri: env.MONGODB_URI || config.uri,
    dataDir: (env.DATA_DIR || config.dataDir === undefined) ? projectDataDir(env, root) : config.dataDir,
    earlyEngine: options.earlyEngine,
    ...(engineTools ? { engineTools } : {}),
  }).catch((error: unknown) => {
    // An option the file got wrong: the line names the file it came from.
    if (file !== null && error instanceof TypeError) throw new TypeError(`${file}: ${error.message}`, { cause: error });
    throw error;
  });
  app.onError(defaultErrorHandler); // production: logged, 500 "An error occurred!"; elsewhere: rethrown
  const server = await listen(app, {
    port: Number(env.PORT || 3000),
    host: env.HOST || "127.0.0.1",
    languages: app.languages,
    ...timeouts,
  }).catch(async (error: unknown) => {
    await app.close(); // a busy port must not leave the data folder held
    throw error;
  });
  let stopping: Promise<void> | undefined;
  // The HTTP side drains (or hits its deadline) before the driver closes, so no request still
  // running meets a closed client.
  const stop = (): Promise<void> => (stopping ??= server.close().then(() => app.close()));
  return { app, server, stop };
}

/**
 * The command: serves the project in the current folder until SIGINT or SIGTERM, then exits.
 * A project that cannot start prints one line naming what is wrong and exits with status 1.
 */
export async function runProject(options: ProjectOptions = {}): Promise<void> {
  let project: ServedProject;
  try {
    project = await serveProject(options);
  } catch (error) {
    // Configuration mistakes (a broken project, a bad variable) and an environment that keeps
    // the server from starting (a busy port, a held data folder) are one line, not a stack.
    if (!(error instanceof TypeError || error instanceof RangeError || error instanceof StartupError)) throw error;
    console.error(`mongorest: ${error.message}`);
    process.exit(1);
  }
  const uri = (options.env ?? process.env).MONGODB_URI;
  console.log(`Listening on ${project.server.url} (${uri ? "MongoDB" : "embedded engine"})`);
  const tools = uri ? undefined : engineToolsFromEnv(options.env ?? process.env);
  if (tools) console.log(`The embedded engine is open to tools on 127.0.0.1:${tools.port} for user ${tools.user}`);
  handleShutdownSignals(
    {
      on: (signal, handler) => process.on(signal, handler),
      exit: (code) => process.exit(code),
      log: (line) => console.log(line),
    },
    project.stop,
  );
}
