import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A file of the docs page, read once and kept. */
export interface Asset {
  body: Uint8Array;
  contentType: string;
}

/** The Swagger UI files the page uses, by the name they are served under, with their types. */
export const SWAGGER_FILES: Readonly<Record<string, string>> = Object.freeze({
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png",
});

let folder: string | undefined;

/**
 * Where npm put swagger-ui-dist. Resolved through Node's module resolution (which Deno offers
 * as well), so the files come from the project's own node_modules: no CDN, no network.
 */
function swaggerFolder(): string {
  folder ??= dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
  return folder;
}

const loaded = new Map<string, Promise<Asset>>();

/**
 * One of {@link SWAGGER_FILES}, read from disk on first use and then served from memory. Read
 * lazily, so an app that never shows its docs page never touches the file system for it.
 */
export function swaggerAsset(name: string): Promise<Asset> {
  let asset = loaded.get(name);
  if (!asset) {
    asset = readFile(join(swaggerFolder(), name)).then((bytes) => ({
      body: new Uint8Array(bytes),
      contentType: SWAGGER_FILES[name],
    }));
    // A failed read (package missing) is retried next time rather than remembered.
    asset.catch(() => loaded.delete(name));
    loaded.set(name, asset);
  }
  return asset;
}
