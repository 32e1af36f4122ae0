/**
 * `npm run seed -- --users 10000 [--posts-per-user 2] [--comments-per-post 2] [--seed 1]`:
 * fills the example app's database (MONGODB_URI, else the embedded engine in DATA_DIR, default
 * ./data) with users, posts and comments, with a progress bar. Stop `npm start` first when it
 * uses the same DATA_DIR: one engine at a time may own a data folder.
 */
import process from "node:process";
import { Presets, SingleBar } from "cli-progress";
import { createApp } from "../src/mod.ts";
import { loadModels } from "../src/loader.ts";
import { seedExampleApp } from "./seed-data.ts";
import { parseSeedArgs, type SeedArgs } from "./seed-args.ts";

/** The arguments, or one line on stderr and exit 2: before the engine or the database is opened. */
function argsOrExit(): SeedArgs {
  try {
    return parseSeedArgs(process.argv.slice(2));
  } catch (error) {
    console.error(`seed: ${(error as Error).message}`);
    process.exit(2);
  }
}

const { counts, seed } = argsOrExit();
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
    seed,
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
