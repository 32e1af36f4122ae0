/** The example app's pieces, for the documentation's code blocks (tests/docs/code-blocks.test.ts). */
import { optional, string } from "superstruct";
import { loadModels } from "../../src/cli.ts";
import { loadConfig } from "../../src/loader.ts";
import { type App, defineModel, type Model, type ModelHooks } from "./shims/mod.ts";
import { createApp } from "./shims/mod.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
let loaded: Promise<Model[]> | undefined;

/** The example app's models (models/ at the repository's top). */
export function models(): Promise<Model[]> {
  return (loaded ??= loadModels(`${ROOT}models`));
}

/**
 * An app from a block that is a file: a model file beside the example's other models, or a
 * hooks file with the example's models (and a bare model of its name when there is none).
 */
export async function appWith(folder: string, name: string, value: unknown): Promise<App> {
  const example = await models();
  // The example's configuration (its auth) comes too, as `npm start` reads it.
  const { config } = await loadConfig(ROOT);
  if (folder === "models") {
    const model = value as Model;
    return await createApp({ ...config, models: [...example.filter((other) => other.name !== model.name), model] });
  }
  const known = example.some((model) => model.name === name);
  const own = known ? [] : [defineModel({ name, fields: { title: optional(string()) }, access: "public" })];
  return await createApp({ ...config, models: [...example, ...own], hooks: { [name]: value as ModelHooks } });
}
