/** `./src/embedded/mod.ts` for the code blocks: "./data" is a fresh folder per block, and engines are closed after it. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedEngine, startEmbeddedEngine as start } from "../../../src/embedded/mod.ts";
import { track } from "./registry.ts";

export * from "../../../src/embedded/mod.ts";

const folders = new Map<string, string>();

export async function startEmbeddedEngine(...[options = {}]: Parameters<typeof start>): Promise<EmbeddedEngine> {
  const given = options.dataDir;
  if (given !== undefined && !folders.has(given)) folders.set(given, join(mkdtempSync(join(tmpdir(), "doc-")), "data"));
  const engine = await start({ ...options, ...(given !== undefined ? { dataDir: folders.get(given) } : {}) });
  track(() => engine.close());
  return engine;
}
