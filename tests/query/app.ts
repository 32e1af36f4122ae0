import type { Document } from "bson";
import { type App, type AppOptions, createApp } from "../../src/mod.ts";
import { userDocs } from "./cases.ts";
import { Comment, Like, Post, Profile, Team, Trashable, User } from "./models.ts";

/** A parsed response body: any JSON shape, which the tests check field by field. */
// deno-lint-ignore no-explicit-any
type ResponseBody = any;

/** Values of hidden fields: they must never appear in any response body. */
export const SECRET_MARKERS = ["hash-of-secret", "TOP-SECRET"];

/** Hidden field names per collection, for checking response keys. */
export const HIDDEN_KEYS = new Set(["password", "secret"]);

const at = new Date("2024-01-01T00:00:00Z");
const stamp = (doc: Document) => ({ created_at: at, updated_at: at, ...doc });

/** Relation data over the users of {@link userDocs}. */
export function relationDocs(): Record<string, Document[]> {
  return {
    [Team.collection]: [{ _id: 1, name: "Red" }, { _id: 2, name: "Blue" }].map(stamp),
    [Post.collection]: [
      { _id: 13, user_id: 1, title: "p13" },
      { _id: 11, user_id: 1, title: "p11" },
      { _id: 12, user_id: 1, title: "p12" },
      { _id: 21, user_id: 2, title: "p21" },
      { _id: 31, user_id: 3, title: "p31" },
    ].map((post) => stamp({ ...post, secret: `TOP-SECRET-${post._id}` })),
    [Comment.collection]: [
      { _id: 101, post_id: 11, content: "c101" },
      { _id: 102, post_id: 11, content: "c102" },
      { _id: 103, post_id: 21, content: "c103" },
    ].map(stamp),
    [Like.collection]: [
      { _id: 1001, comment_id: 101, stars: 5 },
      { _id: 1002, comment_id: 101, stars: 1, deleted_at: at },
    ].map(stamp),
    [Profile.collection]: [{ _id: 501, user_id: 1, bio: "b1" }, { _id: 502, user_id: 2, bio: "b2" }].map(stamp),
  };
}

/** An app over the query-test models, seeded straight into the database (fixed ids and dates). */
export async function queryApp(options: Partial<AppOptions> = {}): Promise<App> {
  const app = await createApp({ models: [User, Post, Comment, Like, Profile, Team, Trashable], ...options });
  try {
    await app.db.collection(User.collection).insertMany(userDocs());
    for (const [collection, docs] of Object.entries(relationDocs())) {
      await app.db.collection(collection).insertMany(docs);
    }
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

/** GET with query parameters encoded the way browsers and Axe's client encode them. */
export async function get(
  app: App,
  path: string,
  params: Record<string, string> = {},
): Promise<{ status: number; body: ResponseBody; text: string }> {
  const search = new URLSearchParams(params).toString();
  const response = await app.fetch(new Request(`http://localhost/api/v1/${path}${search ? `?${search}` : ""}`));
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, body, text };
}

/** Every key of every object in a JSON value, at any depth. */
export function allKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) { for (const item of value) allKeys(item, into); }
  else if (value !== null && typeof value === "object") {
    for (const [key, child] of Object.entries(value)) {
      into.add(key);
      allKeys(child, into);
    }
  }
  return into;
}
