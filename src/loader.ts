import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ModelHooks } from "./handlers/context.ts";
import { isModel, type Model } from "./model/define.ts";
import { isPlainObject } from "./model/strict.ts";

// .ts files load under tsx and Deno (and Node versions that strip types); under plain node,
// write models and hooks as .js or .mjs.
const SOURCE = /^[^.].*\.(ts|mts|js|mjs)$/;

async function sourceFiles(dir: string, required: boolean): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
    if (required) {
      throw new TypeError(`${dir}/: no such folder; put one model file per resource there (models/User.js)`);
    }
    return [];
  }
  const files = names.filter((name) => SOURCE.test(name) && !name.endsWith(".d.ts")).sort();
  if (required && files.length === 0) {
    throw new TypeError(`${dir}/ has no model files (.js, .mjs or .ts); add one per resource`);
  }
  return files;
}

async function defaultExport(file: string): Promise<unknown> {
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(resolve(file)).href);
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_UNKNOWN_FILE_EXTENSION") {
      throw new TypeError(`${file}: plain node cannot load TypeScript; write it as .js/.mjs, or run under tsx or Deno`);
    }
    throw error;
  }
  if (!("default" in module)) throw new TypeError(`${file} must have a default export`);
  return module.default;
}

/** Loads every `models/<Name>.{js,mjs,ts}`: each must default-export `defineModel({...})`. */
export async function loadModels(dir: string): Promise<Model[]> {
  const models: Model[] = [];
  for (const name of await sourceFiles(dir, true)) {
    const file = join(dir, name);
    const model = await defaultExport(file);
    if (!isModel(model)) {
      throw new TypeError(`${file}: the default export is not a model; export default defineModel({ ... })`);
    }
    models.push(model);
  }
  return models;
}

/**
 * Loads every `hooks/<ModelName>.{js,mjs,ts}`; the file name names the model its hooks belong
 * to. With `models`, a file for a model not among them stops start-up, naming the file.
 */
export async function loadHooks(dir: string, models?: readonly Model[]): Promise<Record<string, ModelHooks>> {
  const hooks: Record<string, ModelHooks> = {};
  for (const name of await sourceFiles(dir, false)) {
    const file = join(dir, name);
    const model = name.replace(/\.[^.]+$/, "");
    if (models && !models.some((m) => m.name === model)) {
      throw new TypeError(
        `${file}: no model named ${model}; hooks files are named after a model (${
          models.map((m) => m.name).join(", ")
        })`,
      );
    }
    const value = await defaultExport(file);
    if (!isPlainObject(value)) {
      throw new TypeError(`${file}: the default export is not a hooks object; export default defineHooks({ ... })`);
    }
    hooks[model] = value as ModelHooks;
  }
  return hooks;
}
