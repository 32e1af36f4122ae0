// The package as a user gets it: `npm pack` (which builds dist/ with tsc), the tarball installed
// into an empty folder from the npm cache, then used from TypeScript, from a plain .mjs app on
// Node and on Deno over real sockets, and through its `mongorest` command.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { appendFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { request } from "undici";

const run = promisify(execFile);
const repo = new URL("../../", import.meta.url).pathname;
const bin = (name: string): string => join(repo, "node_modules/.bin", name);

const APP = `import { string } from "superstruct";
import { createApp, defaultErrorHandler, defineModel } from "mongorest";
import { listen } from "mongorest/serve";

const Thing = defineModel({ name: "Thing", fields: { label: string() } });
const app = await createApp({ models: [Thing] });
app.onError(defaultErrorHandler);
const created = await app.fetch(new Request("http://app/api/v1/things", {
  method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ label: "first" }),
}));
if (created.status !== 201) throw new Error("insert failed: " + created.status);
const server = await listen(app, { port: 0, host: "127.0.0.1", language: app.language });
console.log("Listening on " + server.url + " ");
`;

const CONSUMER = `import { string } from "superstruct";
import { ApiError, createApp, defineHooks, defineModel, type App, type PaginateContext } from "mongorest";
import { createNodeListener, serveNode, type NodeServer } from "mongorest/node";

const Thing = defineModel({ name: "Thing", fields: { label: string() }, perPage: 5 });
const hooks = defineHooks({
  onBeforePaginate(ctx: PaginateContext) {
    if (ctx.query.perPage > 5) throw new ApiError("Too many.", 422, { cause: ctx.query });
  },
});
const app: App = await createApp({ models: [Thing], hooks: { Thing: hooks }, language: "en" });
const server: NodeServer = await serveNode(app, { port: 0, language: app.language });
const listener: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = createNodeListener(app);
// Any fetch handler is served too, its Responses written as they are.
createNodeListener(app.fetch);
// @ts-expect-error: defineModel's types refuse unknown options too
defineModel({ name: "Other", fields: {}, serialize: true });
console.log(server.url, typeof listener);
`;

const TSCONFIG = (typeRoot: string): string =>
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      noEmit: true,
      lib: ["ES2023", "DOM"],
      types: ["node"],
      typeRoots: [typeRoot],
      skipLibCheck: true,
    },
    files: ["consumer.ts"],
  });

/** Spawns a server, waits (on its output, no polling) for its URL, and hands back a stop function. */
async function serve(command: string, args: string[], cwd: string): Promise<{ base: string; stop(): Promise<void> }> {
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const base = await new Promise<string>((resolve, reject) => {
    const check = (chunk: Buffer): void => {
      output += chunk;
      const found = /Listening on (http:\S+) /.exec(output);
      if (found) resolve(found[1]);
    };
    child.stdout.on("data", check);
    child.stderr.on("data", check);
    void closed.then(() => reject(new Error(`${command} ${args.join(" ")} ended before listening:\n${output}`)));
  });
  return { base, stop: async () => void (child.kill("SIGTERM"), await closed) };
}

async function assertListAnd404(base: string): Promise<void> {
  const list = await request(`${base}/api/v1/things`);
  assert.equal(list.statusCode, 200);
  assert.equal(list.headers["content-language"], "en");
  const body = (await list.body.json()) as { data: { label: string }[]; pagination: { total: number } };
  assert.deepEqual([body.data.map((thing) => thing.label), body.pagination.total], [["first"], 1]);
  const missing = await request(`${base}/api/v1/nothing`);
  assert.equal(missing.statusCode, 404);
  assert.deepEqual(await missing.body.json(), { error: "No route matches GET /api/v1/nothing." });
}

// Appended to the project's installed copy of Swagger UI's stylesheet: served back, it proves the
// docs page reads the files from the project's own node_modules, not from this repository's.
const MARKER = "/* served from the project's node_modules */";

/** The docs page, its Swagger UI files and the OpenAPI document, as a browser would fetch them. */
async function assertDocs(base: string, project: string): Promise<void> {
  const page = await request(`${base}/docs`);
  assert.equal(page.statusCode, 200);
  const html = await page.body.text();
  for (const name of ["swagger-ui.css", "swagger-ui-bundle.js"]) {
    assert.ok(html.includes(`/docs/${name}`), `the page links ${name}`);
  }
  const css = await request(`${base}/docs/swagger-ui.css`);
  assert.equal(css.statusCode, 200);
  assert.ok((await css.body.text()).endsWith(MARKER), "the stylesheet is the project's installed one");
  const bundle = await request(`${base}/docs/swagger-ui-bundle.js`);
  assert.equal(bundle.statusCode, 200);
  const installed = await readFile(join(project, "node_modules/swagger-ui-dist/swagger-ui-bundle.js"));
  assert.ok(
    Buffer.from(await bundle.body.arrayBuffer()).equals(installed),
    "the bundle is the installed file, byte for byte",
  );
  const document = await request(`${base}/api/v1/openapi.json`);
  assert.equal(document.statusCode, 200);
  assert.ok("/api/v1/things" in ((await document.body.json()) as { paths: Record<string, unknown> }).paths);
}

/** How compiled ESM names another module: static and dynamic imports, re-exports, require.resolve. */
const IMPORT_FORMS = [
  /^\s*(?:import|export)\s[^"';]*?\bfrom\s*["']([^"']+)["']/gm,
  /^\s*import\s*["']([^"']+)["']/gm,
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  /[rR]equire(?:\([^)]*\))?\.resolve\(\s*["']([^"']+)["']/g,
];

/** Every package the compiled JavaScript under `dir` imports (relative paths and node: built-ins left out). */
async function importedPackages(dir: string): Promise<Set<string>> {
  const names = new Set<string>();
  for (const entry of await readdir(dir, { recursive: true })) {
    if (!entry.endsWith(".js")) continue;
    const code = await readFile(join(dir, entry), "utf8");
    for (const form of IMPORT_FORMS) {
      for (const [, specifier] of code.matchAll(form)) {
        if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
        const parts = specifier.split("/");
        names.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]);
      }
    }
  }
  return names;
}

describe("the packed tarball, installed into an empty project", () => {
  let dir: string;
  let project: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "mongorest-pack-"));
    const { stdout } = await run("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: repo });
    const tarball = join(dir, stdout.trim().split("\n").pop()!);
    project = join(dir, "project");
    await mkdir(project);
    await writeFile(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
    // Dependencies come from the npm cache that `npm ci` filled; the registry only for what is missing.
    await run("npm", [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      tarball,
      "superstruct@^2",
    ], { cwd: project });
    await writeFile(join(project, "app.mjs"), APP);
    await appendFile(join(project, "node_modules/swagger-ui-dist/swagger-ui.css"), MARKER);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("ships dist/ and no tests, scripts or example app", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((file) => file.path);
    assert.ok(files.includes("dist/mod.js") && files.includes("dist/mod.d.ts") && files.includes("dist/bin.js"));
    assert.deepEqual(files.filter((file) => /^(src|tests|scripts|models|hooks)\/|^main\.ts$/.test(file)), []);
  });

  test("every package the compiled code imports is a runtime dependency, installed with it", async () => {
    const installed = join(project, "node_modules/mongorest");
    const { dependencies } = JSON.parse(await readFile(join(installed, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
    };
    const imported = await importedPackages(join(installed, "dist"));
    assert.ok(imported.has("mongodb") && imported.has("swagger-ui-dist"), `found: ${[...imported].join(", ")}`);
    assert.deepEqual(
      [...imported].filter((name) => !(name in dependencies)).sort(),
      [],
      "imported but not in dependencies",
    );
  });

  test("a TypeScript file importing mongorest and mongorest/node type-checks", async () => {
    await writeFile(join(project, "consumer.ts"), CONSUMER);
    await writeFile(join(project, "tsconfig.json"), TSCONFIG(join(repo, "node_modules/@types")));
    await run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", project]);
  });

  test("a plain .mjs app serves a list, a 404 and /docs on Node", async () => {
    const server = await serve(process.execPath, ["app.mjs"], project);
    try {
      await assertListAnd404(server.base);
      await assertDocs(server.base, project);
    } finally {
      await server.stop();
    }
  });

  test("the same app serves a list, a 404 and /docs on Deno", async () => {
    const server = await serve(bin("deno"), ["run", "-A", "app.mjs"], project);
    try {
      await assertListAnd404(server.base);
      await assertDocs(server.base, project);
    } finally {
      await server.stop();
    }
  });

  test("`mongorest` serves the project's models/ folder, and a project without one stops with one line", async () => {
    const refused = await run(join(project, "node_modules/.bin/mongorest"), [], { cwd: project }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    assert.deepEqual([refused?.code, refused?.stderr], [
      1,
      "mongorest: models/: no such folder; put one model file per resource there (models/User.js)\n",
    ]);
    await mkdir(join(project, "models"));
    await writeFile(
      join(project, "models/Thing.mjs"),
      `import { string } from "superstruct";\nimport { defineModel } from "mongorest";\nexport default defineModel({ name: "Thing", fields: { label: string() } });\n`,
    );
    const server = await serve(join(project, "node_modules/.bin/mongorest"), [], project);
    try {
      const list = await request(`${server.base}/api/v1/things`);
      assert.deepEqual([list.statusCode, ((await list.body.json()) as { data: unknown[] }).data], [200, []]);
    } finally {
      await server.stop();
    }
  });
});
