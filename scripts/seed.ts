/**
 * `npm run seed -- --users 10000 [--posts-per-user 2] [--comments-per-post 2] [--seed 1]`:
 * fills the example app's database (MONGODB_URI, else the embedded engine in DATA_DIR, default
 * ./data) with users, posts and comments, with a progress bar. Stop `npm start` first when it
 * uses the same DATA_DIR: one engine at a time may own a data folder.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { Presets, SingleBar } from "cli-progress";
import { createApp } from "../src/mod.ts";
import { loadModels } from "../src/loader.ts";
import { type SeedCounts, seedExampleApp } from "./seed-data.ts";

function count(raw: string, name: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value)) {
    console.error(`--${name} must be a whole number, got "${raw}"`);
    process.exit(2);
  }
  return value;
}

const { values } = parseArgs({
  options: {
    users: { type: "string", default: "1000" },
    "posts-per-user": { type: "string", default: "2" },
    "comments-per-post": { type: "string", default: "2" },
    seed: { type: "string", default: "1" },
  },
});
const counts: SeedCounts = {
  users: count(values.users, "users"),
  postsPerUser: count(values["posts-per-user"], "posts-per-user"),
  commentsPerPost: count(values["comments-per-post"], "comments-per-post"),
};
const total = counts.users * (1 + counts.postsPerUser * (1 + counts.commentsPerPost));

const app = await createApp({
  models: await loadModels("models"),
  uri: process.env.MONGODB_URI || undefined,
  dataDir: process.env.DATA_DIR || "./data",
});
const bar = new SingleBar(
  { format: "seeding [{bar}] {percentage}% | {value}/{total} records | ETA {eta}s" },
  Presets.shades_classic,
);
bar.start(total, 0);
try {
  const first = await seedExampleApp(app, counts, {
    seed: count(values.seed, "seed"),
    onProgress: (n) => bar.increment(n),
  });
  bar.stop();
  const posts = counts.users * counts.postsPerUser;
  console.log(
    `Added ${counts.users} users (from id ${first.User}), ${posts} posts, ${posts * counts.commentsPerPost} comments.`,
  );
} finally {
  bar.stop();
  await app.close();
}
