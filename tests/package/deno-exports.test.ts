// deno.json's export map (the `@mongorest/mongorest` JSR package, for Deno users): a consumer in
// a Deno workspace beside this repository imports every entry point through it, and `deno check`
// type-checks it, refusing a consumer that misuses the types.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const repo = fileURLToPath(new URL("../../", import.meta.url));
const deno = join(repo, "node_modules/.bin/deno");

const CONSUMER = `import { createApp, defineModel, type App } from "@mongorest/mongorest";
import { createNodeListener, serveNode, type NodeServer } from "@mongorest/mongorest/node";
import { listen } from "@mongorest/mongorest/serve";
import { startEmbeddedEngine } from "@mongorest/mongorest/embedded";
import { loadModels, serveProject } from "@mongorest/mongorest/cli";

const Thing = defineModel({ name: "Thing", fields: {} });
export async function start(): Promise<NodeServer> {
  const app: App = await createApp({ models: [Thing, ...(await loadModels("models"))] });
  return await serveNode(app, { port: 0 });
}
export const parts = [createNodeListener, listen, startEmbeddedEngine, serveProject];
`;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "mongorest-jsr-"));
  // The workspace's root holds the npm packages the library imports, as a Deno project would.
  await writeFile(
    join(dir, "deno.json"),
    JSON.stringify({ workspace: ["./mongorest", "./consumer"], nodeModulesDir: "manual" }),
  );
  await symlink(repo, join(dir, "mongorest"));
  await symlink(join(repo, "node_modules"), join(dir, "node_modules"));
  await mkdir(join(dir, "consumer"));
  await writeFile(
    join(dir, "consumer/deno.json"),
    JSON.stringify({ name: "@example/consumer", version: "0.0.0", exports: "./main.ts" }),
  );
});
after(() => rm(dir, { recursive: true, force: true }));

async function check(source: string): Promise<{ ok: boolean; output: string }> {
  await writeFile(join(dir, "consumer/main.ts"), source);
  return await run(deno, ["check", "consumer/main.ts"], { cwd: dir, env: { ...process.env, NO_COLOR: "1" } })
    .then(({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }))
    .catch((error: { stdout: string; stderr: string }) => ({ ok: false, output: error.stdout + error.stderr }));
}

test("the export map names the same entry points and version as package.json's", async () => {
  const denoJson = JSON.parse(await readFile(join(repo, "deno.json"), "utf8")) as {
    exports: Record<string, string>;
    version: string;
  };
  const packageJson = JSON.parse(await readFile(join(repo, "package.json"), "utf8")) as {
    exports: Record<string, unknown>;
    version: string;
  };
  assert.deepEqual(
    Object.keys(denoJson.exports).sort(),
    Object.keys(packageJson.exports).filter((name) => name !== "./package.json").sort(),
  );
});

test("a consumer importing every entry point through deno.json type-checks", async () => {
  const { ok, output } = await check(CONSUMER);
  assert.ok(ok, output);
});

test("and a consumer misusing the types does not", async () => {
  const { ok, output } = await check(`${CONSUMER}\nexport const wrong: number = await createApp({ models: [] });\n`);
  assert.equal(ok, false);
  assert.match(output, /TS2322/);
});
