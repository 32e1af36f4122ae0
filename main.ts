/**
 * The entry file `npm start` and `deno task start` run: loads models/ and hooks/, connects
 * (embedded engine unless MONGODB_URI is set) and serves on HOST:PORT.
 */
import process from "node:process";
import { createApp, defaultErrorHandler } from "./src/mod.ts";
import { loadHooks, loadModels } from "./src/loader.ts";
import { listen } from "./src/http/serve.ts";
import { handleShutdownSignals } from "./src/http/shutdown.ts";
import { timeoutsFromEnv } from "./src/http/timeouts.ts";

const env = process.env;
let timeouts;
try {
  timeouts = timeoutsFromEnv(env);
} catch (error) {
  console.error((error as Error).message); // a configuration mistake: one line, no stack
  process.exit(1);
}
const app = await createApp({
  models: await loadModels("models"),
  hooks: await loadHooks("hooks"),
  uri: env.MONGODB_URI || undefined,
  dataDir: env.DATA_DIR || "./data",
});

app.onError(defaultErrorHandler); // the default error handler: remove this line to disable it

const server = await listen(app.fetch, { port: Number(env.PORT || 3000), host: env.HOST || "127.0.0.1", ...timeouts });
console.log(`Listening on ${server.url} (${env.MONGODB_URI ? "MongoDB" : "embedded engine"})`);

// The HTTP side drains (or hits its deadline) before the driver closes, so no request still
// running meets a closed client.
handleShutdownSignals(
  { on: (signal, handler) => process.on(signal, handler), exit: (code) => process.exit(code), log: (line) => console.log(line) },
  async () => {
    await server.close();
    await app.close();
  },
);
