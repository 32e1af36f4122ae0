/**
 * A project's configuration file, `mongorest.config.{ts,mts,js,mjs}` at its root: every
 * `createApp` option but the models and hooks, which come from `models/` and `hooks/`.
 * `npx mongorest` (and the example's `npm start`) read it; MONGODB_URI and DATA_DIR in the
 * environment win over `uri` and `dataDir` in the file.
 */
import type { AppOptions } from "./app-options.ts";

/** What a configuration file exports by default. */
export type ProjectConfig = Omit<AppOptions, "models" | "hooks">;

/** Types a configuration file's default export: `export default defineConfig({ auth: { ... } })`. */
export function defineConfig(config: ProjectConfig): ProjectConfig {
  return config;
}
