/**
 * The example app `npm start` and `deno task start` run: models/ and hooks/ of this folder,
 * served exactly as `npx mongorest` serves a project (embedded engine unless MONGODB_URI is set).
 */
import process from "node:process";
import { startEngineEarly } from "./src/store/engine-early.ts";

// The engine recovers the data folder while the app's modules load (imported only after this).
const earlyEngine = startEngineEarly(process.env);
const { runProject } = await import("./src/cli.ts");
await runProject({ earlyEngine });
