/**
 * The example app `npm start` and `deno task start` run: models/ and hooks/ of this folder,
 * served exactly as `npx mongorest` serves a project (embedded engine unless MONGODB_URI is set).
 */
import { runProject } from "./src/cli.ts";

await runProject();
