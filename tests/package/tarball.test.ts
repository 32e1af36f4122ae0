// The package as a user gets it: `npm pack` (which builds dist/ with tsc), the tarball installed
// into an empty folder from the npm cache, then used from TypeScript, from a plain .mjs app on
// Node and on Deno over real sockets, and through its `mongorest` command.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
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
const server = await listen(app.fetch, { port: 0, host: "127.0.0.1", language: app.language });
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
const server: NodeServer = await serveNode(app.fetch, { port: 0, language: app.language });
const listener: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = createNodeListener(app.fetch);
// @ts-expect-error: defineModel's types refuse unknown options too
defineModel({ name: "Other", fields: {}, serialize: true });
console.log(server.url, typeof listener);
`;

const TSCONFIG = (typeRoot: string): string => JSON.stringify({
  compilerOptions: {
    target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true,
    lib: ["ES2023", "DOM"], types: ["node"], typeRoots: [typeRoot], skipLibCheck: true,
  },
  files: ["consumer.ts"],
});

/** Spawns a server, waits (on its output, no polling) for its URL, and hands back a stop function. */
async function serve(command: string, args: string[], cwd: string): Promise<{ base: string; stop(): Promise<void> }> {
  const child = spawn(command, args, { cwd, env: { ...process.env, PORT: "0", HOST: "127.0.0.1", NODE_ENV: "" }, stdio: ["ignore", "pipe", "pipe"] });
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
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball, "superstruct@^2"], { cwd: project });
    await writeFile(join(project, "app.mjs"), APP);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("ships dist/ and no tests, scripts or example app", async () => {
    const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repo });
    const files = (JSON.parse(stdout) as { files: { path: string }[] }[])[0].files.map((file) => file.path);
    assert.ok(files.includes("dist/mod.js") && files.includes("dist/mod.d.ts") && files.includes("dist/bin.js"));
    assert.deepEqual(files.filter((file) => /^(src|tests|scripts|models|hooks)\/|^main\.ts$/.test(file)), []);
  });

  test("a TypeScript file importing mongorest and mongorest/node type-checks", async () => {
    await writeFile(join(project, "consumer.ts"), CONSUMER);
    await writeFile(join(project, "tsconfig.json"), TSCONFIG(join(repo, "node_modules/@types")));
    await run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", project]);
  });

  test("a plain .mjs app serves a list and a 404 on Node", async () => {
    const server = await serve(process.execPath, ["app.mjs"], project);
    try {
      await assertListAnd404(server.base);
    } finally {
      await server.stop();
    }
  });

  test("the same app serves a list and a 404 on Deno", async () => {
    const server = await serve(bin("deno"), ["run", "-A", "app.mjs"], project);
    try {
      await assertListAnd404(server.base);
    } finally {
      await server.stop();
    }
  });

  test("`mongorest` serves the project's models/ folder, and a project without one stops with one line", async () => {
    const refused = await run(join(project, "node_modules/.bin/mongorest"), [], { cwd: project }).then(() => null, (error: { code: number; stderr: string }) => error);
    assert.deepEqual([refused?.code, refused?.stderr], [1, "mongorest: models/: no such folder; put one model file per resource there (models/User.js)\n"]);
    await mkdir(join(project, "models"));
    await writeFile(join(project, "models/Thing.mjs"), `import { string } from "superstruct";\nimport { defineModel } from "mongorest";\nexport default defineModel({ name: "Thing", fields: { label: string() } });\n`);
    const server = await serve(join(project, "node_modules/.bin/mongorest"), [], project);
    try {
      const list = await request(`${server.base}/api/v1/things`);
      assert.deepEqual([list.statusCode, ((await list.body.json()) as { data: unknown[] }).data], [200, []]);
    } finally {
      await server.stop();
    }
  });
});
