import { readdir, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ProjectConfig } from "./config.ts";
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

/** Lines of a compiler's report that only frame the problem: banners, source excerpts, stack lines. */
const FRAMING = /^(Transform failed with \d+ errors?:|\d*\s*\||~+$|at\s)/;

/**
 * One line of what went wrong loading `file`: a syntax error's report (esbuild's under tsx,
 * Deno's with a source excerpt) without its framing, and the file's own path dropped, since
 * the message starts with it. The line and column stay.
 */
function loadProblem(file: string, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const absolute = resolve(file);
  const where = /(?:file:\/\/)?(\/[^\s:]+):(\d+):(\d+)/;
  const lines = text.split("\n").map((line) => line.trim()).filter((line) => line !== "");
  const position = lines.map((line) => line.match(where)).find((match) => match && match[1] === absolute);
  const kept = lines.filter((line) => !FRAMING.test(line)).map((line) =>
    line.replace(/\s+at (?:file:\/\/)?\S+:\d+:\d+/g, "").replace(`${absolute}:`, "").replace(/^\d+:\d+: ERROR: /, "")
  );
  const at = position ? ` (line ${position[2]}, column ${position[3]})` : "";
  return `${errorName(error, kept[0] ?? "")}${kept.join(" ")}${at}`;
}

/** The error's kind before its text, unless the text already starts with one (Deno's `SyntaxError: …`). */
function errorName(error: unknown, first: string): string {
  if (!(error instanceof Error) || /^[A-Z]\w*Error\b/.test(first)) return "";
  if (error.name === "TransformError") return "SyntaxError: "; // esbuild's, under tsx
  return error.name === "Error" ? "" : `${error.name}: `;
}

async function defaultExport(file: string): Promise<unknown> {
  let module: Record<string, unknown>;
  try {
    module = await import(pathToFileURL(resolve(file)).href);
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_UNKNOWN_FILE_EXTENSION") {
      throw new TypeError(`${file}: plain node cannot load TypeScript; write it as .js/.mjs, or run under tsx or Deno`);
    }
    // A definition mistake (defineModel's own TypeError) names the model; the file is added.
    // Anything else (a syntax error, an import that does not resolve) becomes one line too.
    const ours = (error instanceof TypeError || error instanceof RangeError) && !error.message.includes("\n");
    throw new TypeError(ours ? `${file}: ${error.message}` : `${file} cannot be loaded: ${loadProblem(file, error)}`, {
      cause: error,
    });
  }
  if (!("default" in module)) throw new TypeError(`${file} must have a default export`);
  return module.default;
}

/** Loads every `models/<Name>.{js,mjs,ts}`: each must default-export `defineModel({...})`. */
export async function loadModels(dir: string): Promise<Model[]> {
  const models: Model[] = [];
  const files = new Map<string, string>();
  for (const name of await sourceFiles(dir, true)) {
    const file = join(dir, name);
    const model = await defaultExport(file);
    if (!isModel(model)) {
      throw new TypeError(`${file}: the default export is not a model; export default defineModel({ ... })`);
    }
    const other = files.get(model.name);
    if (other !== undefined) {
      throw new TypeError(`Model ${model.name} is defined twice, in ${other} and in ${file}; rename one`);
    }
    files.set(model.name, file);
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

const CONFIG_FILES = ["mongorest.config.ts", "mongorest.config.mts", "mongorest.config.js", "mongorest.config.mjs"];

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}

/**
 * The project's `mongorest.config.*` (see `src/config.ts`), or `{}` without one. Two of them,
 * a default export that is not an object, or one that sets `models` or `hooks` stop start-up
 * with one line naming the file; createApp then checks each option, as it does its own.
 */
export async function loadConfig(root: string): Promise<{ file: string | null; config: ProjectConfig }> {
  const found: string[] = [];
  for (const name of CONFIG_FILES) if (await exists(join(root, name))) found.push(join(root, name));
  if (found.length > 1) throw new TypeError(`${found.join(" and ")}: keep one configuration file`);
  if (found.length === 0) return { file: null, config: {} };
  const file = found[0];
  const value = await defaultExport(file);
  if (!isPlainObject(value)) {
    throw new TypeError(`${file}: the default export is not a configuration; export default defineConfig({ ... })`);
  }
  for (const key of ["models", "hooks"]) {
    if (key in value) throw new TypeError(`${file}: ${key} come from the ${key}/ folder, not the configuration`);
  }
  return { file, config: value as ProjectConfig };
}
