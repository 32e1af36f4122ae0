import process from "node:process";
import { fileURLToPath } from "node:url";
import { loadHooks, loadModels } from "../../src/cli.ts";
import { loadConfig } from "../../src/loader.ts";
import { SignJWT } from "jose";
import { DEVELOPMENT_SECRET, TOKEN_ISSUER } from "../../mongorest.config.ts";
import { type App, type AppOptions, createApp } from "../../src/mod.ts";

/** The repository's top folder, where the example app's models/ and hooks/ live. */
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The example app (models/ and hooks/ at the repository's top), loaded through the package's
 * loader as `npx mongorest` loads a project (its mongorest.config.ts too: auth with the
 * example's development secret), on a fresh in-memory engine (or MONGODB_URI). For
 * the few tests of the example itself; framework tests use tests/fixtures/ instead.
 */
export async function exampleProjectApp(options: Partial<AppOptions> = {}): Promise<App> {
  const models = await loadModels(`${ROOT}models`);
  const uri = process.env.MONGODB_URI || undefined;
  const { config } = await loadConfig(ROOT);
  return await createApp({
    ...config,
    models,
    hooks: await loadHooks(`${ROOT}hooks`, models),
    uri,
    dbName: uri ? `test_example_${process.pid}_${Date.now()}` : undefined,
    ...options,
  });
}

/** An Authorization header for the example app: a token `npm run token -- --sub <sub>` would sign. */
export async function exampleAuth(
  sub: number | string,
  roles: readonly string[] = [],
): Promise<Record<string, string>> {
  const token = await new SignJWT({ roles: [...roles] }).setProtectedHeader({ alg: "HS256" }).setSubject(String(sub))
    .setIssuer(TOKEN_ISSUER).setAudience(TOKEN_ISSUER).setIssuedAt().setExpirationTime("1h")
    .sign(new TextEncoder().encode(DEVELOPMENT_SECRET));
  return { authorization: `Bearer ${token}` };
}
