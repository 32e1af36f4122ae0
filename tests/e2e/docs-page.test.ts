/**
 * The docs page in a real headless Chromium (Debian's, driven by playwright-core): it loads from
 * the app alone, shows the users routes, and runs `GET /api/v1/users` from the page.
 * Node only: playwright-core drives the browser through Node's child-process pipes.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { App } from "../../src/mod.ts";
import { call, exampleApp } from "../helpers/app.ts";
import { exampleAuth, exampleProjectApp } from "../helpers/example.ts";

const CHROMIUM = "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
// A bound for each browser step so a broken page fails the test instead of hanging it; never a speed check.
const STEP_LIMIT_MS = 120_000;

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";
const skip = isDeno
  ? "the browser test runs on Node only: playwright-core drives Chromium through Node's child-process pipes"
  : !existsSync(CHROMIUM)
  ? `${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does this)`
  : false;

if (skip) console.log(`skipped: the docs-page browser test (${skip})`);

/** Serves `app` on a free port and opens a fresh headless Chromium for `body`; closes both after. */
async function inBrowser(app: App, body: (page: Page, url: string) => Promise<void>): Promise<void> {
  const { chromium } = await import("playwright-core");
  const { serveNode } = await import("../../src/adapters/node/node-adapter.ts");
  const server = await serveNode(app.fetch, { port: 0, host: "127.0.0.1" });
  // A fresh profile: Playwright takes the user-data-dir as this argument, not as a flag.
  const profile = await mkdtemp(join(tmpdir(), "mongorest-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  try {
    context.setDefaultTimeout(STEP_LIMIT_MS);
    await body(context.pages()[0] ?? (await context.newPage()), server.url);
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
    await server.close();
    await app.close();
  }
}

/** Runs `GET /api/v1/users` from the docs page ("Try it out", "Execute") and returns the body it shows, after a 200. */
async function tryListUsers(page: Page): Promise<string> {
  const list = page.locator("#operations-User-listUsers");
  await list.locator(".opblock-summary").click();
  await list.locator("button.try-out__btn").click();
  await list.locator("button.execute").click();
  const response = list.locator(".live-responses-table tr.response");
  await response.first().waitFor();
  assert.equal((await response.locator(".response-col_status").innerText()).trim(), "200");
  return await response.locator(".response-col_description pre").first().innerText();
}

test("the docs page runs GET /api/v1/users from the browser and shows the 200 and the body", { skip }, async () => {
  const app = await exampleApp();
  const grace = { email: "grace@example.com", name: "Grace", surname: "Hopper" };
  assert.equal((await call(app, "POST", "/api/v1/users", grace)).status, 201);
  await inBrowser(app, async (page, url) => {
    const foreign: string[] = [];
    page.on("request", (request) => {
      if (!request.url().startsWith(url) && !request.url().startsWith("data:")) foreign.push(request.url());
    });
    const failures: string[] = [];
    page.on("pageerror", (error) => failures.push(error.message));

    await page.goto(`${url}/docs`);
    const list = page.locator("#operations-User-listUsers");
    await list.waitFor();
    assert.match(await list.locator(".opblock-summary-path").innerText(), /\/api\/v1\/users/);
    assert.ok(await page.locator("#operations-User-showUser").isVisible(), "the users routes are listed");

    const body = await tryListUsers(page);
    assert.match(body, /"email": "grace@example\.com"/);
    assert.match(body, /"pagination"/);

    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
    assert.deepEqual(foreign, [], "every request of the page stays on the app (no CDN)");
    assert.deepEqual(failures, []);
  });
});

test("with auth, the docs page's Authorize button takes a token that the page then sends", { skip }, async () => {
  const app = await exampleProjectApp(); // the example's configuration: JWTs; emails only for admins
  const ada = { email: "ada@example.com", name: "Ada", surname: "Lovelace" };
  assert.equal((await call(app, "POST", "/api/v1/users", ada)).status, 201);
  const token = (await exampleAuth(1, ["admin"])).authorization.replace("Bearer ", "");
  await inBrowser(app, async (page, url) => {
    const sent: (string | undefined)[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).pathname === "/api/v1/users") sent.push(request.headers()["authorization"]);
    });
    await page.goto(`${url}/docs`);
    await page.locator("button.authorize").first().click();
    const bearer = page.locator(".auth-container").filter({ hasText: "bearerAuth" });
    await bearer.locator("input").fill(token);
    await bearer.locator("button.authorize").click();
    await page.locator("button.btn-done").click();
    const body = await tryListUsers(page);
    assert.match(body, /"email": "ada@example\.com"/, "an admin's view: the token was sent and verified");
    assert.deepEqual(sent, [`Bearer ${token}`]);
  });
});
