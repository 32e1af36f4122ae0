import process from "node:process";
import { fileURLToPath } from "node:url";
import { loadHooks, loadModels } from "../../src/cli.ts";
import { type App, type AppOptions, createApp } from "../../src/mod.ts";

/** The repository's top folder, where the example app's models/ and hooks/ live. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The example app (models/ and hooks/ at the repository's top), loaded through the package's
 * loader as `npx mongorest` loads a project, on a fresh in-memory engine (or MONGODB_URI). For
 * the few tests of the example itself; framework tests use tests/fixtures/ instead.
 */
export async function exampleProjectApp(options: Partial<AppOptions> = {}): Promise<App> {
  const models = await loadModels(`${ROOT}models`);
  const uri = process.env.MONGODB_URI || undefined;
  return await createApp({
    models,
    hooks: await loadHooks(`${ROOT}hooks`, models),
    uri,
    dbName: uri ? `test_example_${process.pid}_${Date.now()}` : undefined,
    ...options,
  });
}
