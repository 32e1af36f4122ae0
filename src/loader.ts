import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ModelHooks } from "./handlers/context.ts";
import type { Model } from "./model/define.ts";

const SOURCE = /^[^.].*\.(ts|js|mjs)$/;

async function sourceFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return [];
    throw error;
  }
  return names.filter((name) => SOURCE.test(name) && !name.endsWith(".d.ts")).sort();
}

async function defaultExport(file: string): Promise<unknown> {
  const module = await import(pathToFileURL(resolve(file)).href);
  if (!("default" in module)) throw new TypeError(`${file} must have a default export`);
  return module.default;
}

/** Loads every `models/<Name>.ts`: each default-exports `defineModel({...})`. */
export async function loadModels(dir: string): Promise<Model[]> {
  const models: Model[] = [];
  for (const name of await sourceFiles(dir)) models.push((await defaultExport(join(dir, name))) as Model);
  return models;
}

/** Loads every `hooks/<ModelName>.ts`; the file name names the model its hooks belong to. */
export async function loadHooks(dir: string): Promise<Record<string, ModelHooks>> {
  const hooks: Record<string, ModelHooks> = {};
  for (const name of await sourceFiles(dir)) {
    hooks[name.replace(/\.[^.]+$/, "")] = (await defaultExport(join(dir, name))) as ModelHooks;
  }
  return hooks;
}
