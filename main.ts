/**
 * The entry file `npm start` and `deno task start` run: loads models/ and hooks/, connects
 * (embedded engine unless MONGODB_URI is set) and serves on HOST:PORT.
 */
import process from "node:process";
import { createApp, defaultErrorHandler } from "./src/mod.ts";
import { loadHooks, loadModels } from "./src/loader.ts";
import { listen } from "./src/http/serve.ts";
import { configureLogging, loggingFromEnv } from "./src/service/logging.ts";

const env = process.env;
await configureLogging(loggingFromEnv(env)); // one line per request: JSON in production, LOG_LEVEL sets the level
const app = await createApp({
  models: await loadModels("models"),
  hooks: await loadHooks("hooks"),
  uri: env.MONGODB_URI || undefined,
  dataDir: env.DATA_DIR || "./data",
});

app.onError(defaultErrorHandler); // the default error handler: remove this line to disable it

const server = await listen(app.fetch, { port: Number(env.PORT || 3000), host: env.HOST || "127.0.0.1" });
console.log(`Listening on ${server.url} (${env.MONGODB_URI ? "MongoDB" : "embedded engine"})`);

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: finishing in-flight requests, then closing the database`);
  await server.close();
  await app.close();
  console.log("Closed.");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
