/**
 * Every TypeScript and JavaScript code block of the README and docs/ runs as written, and
 * type-checks. Each block is written out as a module and imported, with these rules (the
 * README's "Documentation code blocks" says the same):
 *
 * - A block whose first line names a file (`// models/User.ts`, `// hooks/Job.ts`) and that
 *   is a module (imports or `export default`) is that file: a model file is loaded with the
 *   example's other models, a hooks file with the example's models (and a bare model of its
 *   name when the example has none), and an app is created from them.
 * - A fragment (`relations: {…}`, `serialize: …`, `cors: {…}`) runs inside the definition it
 *   belongs to: `defineModel({ … })` or `createApp({ models, … })`.
 * - Any other block runs as a module. Names it uses without defining them come from the
 *   example app: `app` (the example app), `models` (its models), `User`, and the framework's
 *   and superstruct's exports.
 *
 * Imports of `mongorest`, `./src/…` and `node:http` go to shims (tests/docs/shims/) that
 * are the real modules, except that port 3000 becomes a free port, `./data` a fresh folder,
 * and whatever a block opens is closed after it.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { startEmbeddedEngine } from "../../src/embedded/mod.ts";
import { closeAll, track } from "./shims/registry.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const out = join(repo, ".tmp", `doc-blocks-${"Deno" in globalThis ? "deno" : "node"}`);
const DOCUMENTS = ["README.md", "docs/embedded-engine.md", "docs/architecture.md"];

interface Block {
  where: string;
  lang: string;
  code: string;
}

function blocksOf(document: string): Block[] {
  const text = readFileSync(join(repo, document), "utf8");
  return [...text.matchAll(/^```(ts|js)\n([\s\S]*?)^```$/gm)].map((match) => ({
    where: `${document}:${text.slice(0, match.index).split("\n").length}`,
    lang: match[1],
    code: match[2],
  }));
}

const SHIMS: Record<string, string> = {
  mongorest: "tests/docs/shims/mod.ts",
  "mongorest/node": "tests/docs/shims/node.ts",
  "node:http": "tests/docs/shims/http.ts",
  "./src/mod.ts": "tests/docs/shims/mod.ts",
  "../src/mod.ts": "tests/docs/shims/mod.ts",
  "./src/adapters/node/node-adapter.ts": "tests/docs/shims/node.ts",
  "./src/embedded/mod.ts": "tests/docs/shims/embedded.ts",
};

/** The block with its imports pointed at the shims (and the repository's files), by absolute URL. */
function rewired(code: string): string {
  return code.replace(/(from\s+|import\s+)"([^"]+)"/g, (whole, lead: string, specifier: string) => {
    // The shims, else a path from the repository's top (`./models/Post.ts`) or from a file in it (`../src/x.ts`).
    const target = SHIMS[specifier] ?? (/^\.\.?\//.test(specifier) ? specifier.replace(/^\.\.?\//, "") : undefined);
    return target ? `${lead}"${pathToFileURL(join(repo, target)).href}"` : whole;
  });
}

/** Names a block binds itself: imports, and top-level const/let/function/class. */
function boundNames(code: string): Set<string> {
  const names = new Set<string>();
  for (const [, list] of code.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}/g)) {
    for (const part of list.split(",")) {
      const name = part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).pop()!.trim();
      if (name) names.add(name);
    }
  }
  for (const [, name] of code.matchAll(/import\s+(\w+)\s+from/g)) names.add(name);
  for (const [, name] of code.matchAll(/^(?:export\s+)?(?:const|let|function|class)\s+(\w+)/gm)) names.add(name);
  return names;
}

const FRAMEWORK = ["createApp", "defineModel", "defineHooks", "email", "id", "ApiError", "defaultErrorHandler"];
const STRUCTS = ["string", "optional", "nullable", "number", "integer", "boolean"];

/** The lines that give a block the names it uses without defining them. */
function prelude(code: string): string {
  const bound = boundNames(code);
  const uses = (name: string) => !bound.has(name) && new RegExp(`\\b${name}\\b`).test(code);
  const url = (path: string) => pathToFileURL(join(repo, path)).href;
  const lines = [`import * as __mongorest from "${url("tests/docs/shims/mod.ts")}";`];
  lines.push(
    `import * as __structs from "superstruct";`,
    `import * as __example from "${url("tests/docs/example.ts")}";`,
  );
  const framework = FRAMEWORK.filter(uses);
  if (framework.length > 0) lines.push(`const { ${framework.join(", ")} } = __mongorest;`);
  const structs = STRUCTS.filter(uses);
  if (structs.length > 0) lines.push(`const { ${structs.join(", ")} } = __structs;`);
  if (uses("models") || uses("app")) lines.push("const models = await __example.models();");
  if (uses("User")) lines.push('const User = (await __example.models()).find((model) => model.name === "User")!;');
  if (uses("app")) lines.push("const app = await __mongorest.createApp({ models });");
  return lines.join("\n");
}

/** The file a block says it is (`models/User.ts`), when it is a whole module rather than a fragment. */
function fileOf(block: Block): string | undefined {
  const named = block.code.match(/^\/\/ ((?:models|hooks)\/\w+\.(?:ts|js))\b/);
  const body = block.code.replace(/^\/\/.*\n/, "");
  return named && /^(import|export)\b/m.test(body) ? named[1] : undefined;
}

/** The block as a runnable module: a fragment inside its definition, a file loaded into an app, else itself. */
function moduleOf(block: Block, index: number): { path: string; text: string } {
  const file = fileOf(block);
  const ext = block.lang === "js" && !file ? "mjs" : "ts";
  const base = join(out, `block-${index}`);
  if (file) {
    const own = join(base, file);
    mkdirSync(join(own, ".."), { recursive: true });
    writeFileSync(own, `${prelude(block.code)}\n${rewired(block.code)}`);
    const [folder, name] = [file.split("/")[0], file.split("/")[1].replace(/\.\w+$/, "")];
    const use = `await __example.appWith(${JSON.stringify(folder)}, ${JSON.stringify(name)}, (await import("${
      pathToFileURL(own).href
    }")).default);`;
    return {
      path: join(base, `run.ts`),
      text: `import * as __example from "${pathToFileURL(join(repo, "tests/docs/example.ts")).href}";\n${use}\n`,
    };
  }
  const fragment = block.code.replace(/^\/\/.*\n/, "");
  let code = block.code;
  if (/^(relations|serialize):/.test(fragment)) {
    code = `defineModel({ name: "Sample", fields: { name: string(), surname: string() },\n${fragment}\n});`;
  } else if (/^cors:/.test(fragment)) code = `await createApp({ models,\n${fragment}\n});`;
  return { path: `${base}.${ext}`, text: `${prelude(code)}\n${rewired(code)}\n` };
}

rmSync(out, { recursive: true, force: true });
/** Deno.serve on a free port, shut down after the block; returns what puts the real one back. */
function freePortDenoServe(): () => void {
  const deno = (globalThis as unknown as { Deno: { serve: (...args: unknown[]) => { shutdown(): Promise<void> } } })
    .Deno;
  const serve = deno.serve;
  deno.serve = (options: unknown, handler: unknown) => {
    const server = serve({ ...(options as object), port: 0, onListen() {} }, handler);
    track(() => server.shutdown());
    return server;
  };
  return () => (deno.serve = serve);
}

const blocks = DOCUMENTS.flatMap(blocksOf);
const modules = blocks.map((block, index) => ({ block, ...moduleOf(block, index) }));
let target: { uri: string; close(): Promise<void> };

before(async () => {
  for (const { path, text } of modules) {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  // The migration example copies to MONGODB_URI: a second engine stands in for the server.
  target = await startEmbeddedEngine({ thread: false });
});
after(async () => {
  await target.close();
  rmSync(out, { recursive: true, force: true });
});

test("the documents have code blocks to check", () => {
  assert.ok(blocks.length >= 20, `${blocks.length} blocks`);
});

describe("every code block runs as written", () => {
  for (const { block, path } of modules) {
    const denoOnly = /\bDeno\.serve\(/.test(block.code);
    test(block.where, { skip: denoOnly && !("Deno" in globalThis) && "uses Deno.serve: run on Deno" }, async () => {
      const migration = /process\.env\.MONGODB_URI/.test(block.code);
      if (migration) process.env.MONGODB_URI = target.uri;
      const restore = denoOnly ? freePortDenoServe() : () => {};
      try {
        await import(pathToFileURL(path).href);
      } finally {
        restore();
        if (migration) delete process.env.MONGODB_URI;
        await closeAll();
      }
    });
  }
});

test("every code block type-checks", { skip: "Deno" in globalThis && "checked once, from Node" }, async () => {
  const deno = join(repo, "node_modules/.bin/deno");
  const files = modules.flatMap(({ path, block }) => {
    const file = fileOf(block);
    return file ? [path, join(path, "..", file)] : [path];
  });
  try {
    await promisify(execFile)(deno, ["check", ...files], {
      cwd: repo,
      maxBuffer: 1 << 24,
      env: { ...process.env, NO_COLOR: "1" },
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout: string; stderr: string };
    const origin = (text: string) => text.replace(/block-(\d+)/g, (_, n) => `${modules[Number(n)].block.where}`);
    assert.fail(origin(`${stdout}\n${stderr}`.split("\n").filter((line) => !line.startsWith("Check ")).join("\n")));
  }
});
