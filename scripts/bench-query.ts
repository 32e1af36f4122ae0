/**
 * Cost of relation loading, in one run:
 *
 *   npx tsx scripts/bench-query.ts [--rounds 50]      (or: npx deno run -A scripts/bench-query.ts)
 *
 * Seeds 1,000 users, 10,000 posts and 50,000 comments (10 posts per user, 5 comments per
 * post) and requests pages of 10 users, with `with=posts{comments}` and without it as the
 * baseline. The two kinds of request alternate over the same pages, so drift on a shared
 * machine hits both alike. Prints the driver commands per request (command monitoring) and
 * the time per request of each, with the ratio. MONGODB_URI runs it against a real server.
 */
import type { CommandStartedEvent, Document } from "mongodb";
import { integer, string } from "superstruct";
import { type App, createApp, defineModel } from "../src/mod.ts";

const USERS = 1_000;
const POSTS_PER_USER = 10;
const COMMENTS_PER_POST = 5;
const PER_PAGE = 10;
const WITH = "posts{comments}";

const User = defineModel({
  name: "User",
  fields: { name: string() },
  relations: { posts: { type: "hasMany", model: "Post", foreignKey: "user_id" } },
});
const Post = defineModel({
  name: "Post",
  fields: { user_id: integer(), title: string() },
  relations: { comments: { type: "hasMany", model: "Comment", foreignKey: "post_id" } },
  indexes: [{ keys: { user_id: 1 } }],
});
const Comment = defineModel({
  name: "Comment",
  fields: { post_id: integer(), content: string() },
  indexes: [{ keys: { post_id: 1 } }],
});

function flag(name: string, fallback: number): number {
  const args = typeof Deno !== "undefined" ? Deno.args : process.argv;
  const at = args.indexOf(`--${name}`);
  const value = at === -1 ? NaN : Number(args[at + 1]);
  return value > 0 ? value : fallback;
}

declare const Deno: { args: string[]; env: { get(name: string): string | undefined } } | undefined;
const uri = typeof Deno !== "undefined" ? Deno.env.get("MONGODB_URI") : process.env.MONGODB_URI;

async function insertInChunks(app: App, collection: string, docs: Document[]): Promise<void> {
  for (let i = 0; i < docs.length; i += 5_000) await app.db.collection(collection).insertMany(docs.slice(i, i + 5_000));
}

async function seed(app: App): Promise<void> {
  const at = new Date("2024-01-01T00:00:00Z");
  const users: Document[] = [];
  const posts: Document[] = [];
  const comments: Document[] = [];
  for (let u = 1; u <= USERS; u++) {
    users.push({ _id: u, name: `user ${u}`, created_at: at, updated_at: at });
    for (let p = 0; p < POSTS_PER_USER; p++) {
      const postId = (u - 1) * POSTS_PER_USER + p + 1;
      posts.push({ _id: postId, user_id: u, title: `post ${postId}`, created_at: at, updated_at: at });
      for (let c = 0; c < COMMENTS_PER_POST; c++) {
        const commentId = (postId - 1) * COMMENTS_PER_POST + c + 1;
        comments.push({
          _id: commentId,
          post_id: postId,
          content: `comment ${commentId}`,
          created_at: at,
          updated_at: at,
        });
      }
    }
  }
  await insertInChunks(app, User.collection, users);
  await insertInChunks(app, Post.collection, posts);
  await insertInChunks(app, Comment.collection, comments);
}

async function request(app: App, page: number, withRelations: boolean): Promise<Document> {
  const query = `page=${page}&per_page=${PER_PAGE}${withRelations ? `&with=${encodeURIComponent(WITH)}` : ""}`;
  const response = await app.fetch(new Request(`http://localhost/api/v1/users?${query}`));
  if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
  return await response.json();
}

function check(body: Document): void {
  const users = body.data as Document[];
  if (users.length !== PER_PAGE) throw new Error(`expected ${PER_PAGE} users, got ${users.length}`);
  for (const user of users) {
    if (user.posts.length !== POSTS_PER_USER) throw new Error(`user ${user.id}: ${user.posts.length} posts`);
    for (const post of user.posts) {
      if (post.comments.length !== COMMENTS_PER_POST) {
        throw new Error(`post ${post.id}: ${post.comments.length} comments`);
      }
    }
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function main(): Promise<void> {
  const rounds = flag("rounds", 50);
  const dbName = uri ? `bench_query_${Date.now()}` : undefined;
  // responseCache off: the figures are about the database path (repeats of one URL would be cache hits).
  const app = await createApp({
    models: [User, Post, Comment],
    uri,
    dbName,
    clientOptions: { monitorCommands: true },
    responseCache: false,
  });
  let commands = 0;
  app.client.on("commandStarted", (_: CommandStartedEvent) => commands++);
  try {
    const seeding = performance.now();
    await seed(app);
    console.log(
      `seeded ${USERS} users, ${USERS * POSTS_PER_USER} posts, ${
        USERS * POSTS_PER_USER * COMMENTS_PER_POST
      } comments in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );
    check(await request(app, 1, true));
    const pages = Array.from({ length: rounds }, (_, i) => (i * 37) % (USERS / PER_PAGE) + 1);
    for (const page of pages.slice(0, 5)) await request(app, page, false), await request(app, page, true); // warm-up
    const times = { base: [] as number[], with: [] as number[] };
    const counts = { base: 0, with: 0 };
    for (const page of pages) {
      for (const kind of ["base", "with"] as const) {
        commands = 0;
        const start = performance.now();
        await request(app, page, kind === "with");
        times[kind].push(performance.now() - start);
        counts[kind] += commands;
      }
    }
    const row = (kind: "base" | "with") =>
      `${(counts[kind] / rounds).toFixed(2)} commands, median ${median(times[kind]).toFixed(2)} ms, mean ${
        mean(times[kind]).toFixed(2)
      } ms`;
    console.log(
      `page of ${PER_PAGE} users, ${rounds} requests each, ${uri ? "MongoDB at MONGODB_URI" : "embedded engine"}`,
    );
    console.log(`  baseline (no with):        ${row("base")}`);
    console.log(`  with=${WITH}:      ${row("with")}`);
    console.log(
      `  ratio with / baseline:     median ${(median(times.with) / median(times.base)).toFixed(2)}x, mean ${
        (mean(times.with) / mean(times.base)).toFixed(2)
      }x`,
    );
  } finally {
    if (uri) await app.db.dropDatabase();
    await app.close();
  }
}

await main();
