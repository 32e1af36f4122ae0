import { Comment, Post, postHooks, User } from "../fixtures/blog.ts";
import { type App, type AppOptions, createApp } from "../../src/mod.ts";

/**
 * The fixture blog app (tests/fixtures/blog.ts: User, Post, Comment and the Post hooks, not the
 * example app in models/) on a fresh in-memory engine, or on MONGODB_URI.
 */
export async function exampleApp(options: Partial<AppOptions> = {}): Promise<App> {
  return await createApp({
    models: [User, Post, Comment],
    hooks: { Post: postHooks },
    uri: process.env.MONGODB_URI || undefined,
    dbName: process.env.MONGODB_URI ? `test_${Date.now()}_${Math.floor(Math.random() * 1e6)}` : undefined,
    ...options,
  });
}

/** A request against the app, with a JSON body when one is given. */
export async function call(
  app: App,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] ??= "application/json";
  }
  return await app.fetch(new Request(`http://localhost${path}`, init));
}

/** The parsed JSON body of a response, with its status. */
// deno-lint-ignore no-explicit-any -- response bodies of any shape, checked field by field
export async function jsonOf(response: Response): Promise<{ status: number; body: any }> {
  return { status: response.status, body: await response.json() };
}

/** Inserts users through the API (u<n>@example.com, continuing the numbering) and returns their ids. */
export async function seedUsers(app: App, count: number): Promise<number[]> {
  const ids: number[] = [];
  const start = (await app.db.collection("users").countDocuments()) + 1;
  for (let i = start; i < start + count; i++) {
    const res = await call(app, "POST", "/api/v1/users", {
      email: `u${i}@example.com`,
      name: `Name${i}`,
      surname: `Surname${i}`,
      password: "secret",
    });
    if (res.status !== 201) throw new Error(`seed failed: ${res.status} ${await res.text()}`);
    ids.push((await res.json()).id);
  }
  return ids;
}
